package localcloud

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// provisioner creates a PersistentVolume for every pending claim of a
// StorageClass of Provisioner.
type provisioner struct {
	client client.Client
}

// Reconcile provisions the volume of one claim, unless it has one, is being
// deleted, or is of no class or another provisioner's.
func (p *provisioner) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var claim corev1.PersistentVolumeClaim
	if err := p.client.Get(ctx, req.NamespacedName, &claim); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if claim.Spec.VolumeName != "" || claim.DeletionTimestamp != nil || claim.Spec.Selector != nil {
		return reconcile.Result{}, nil // bound, going, or asking for a volume that exists
	}
	class, err := p.classOf(ctx, &claim)
	if class == nil || err != nil || waitsForConsumer(&claim, class) {
		return reconcile.Result{}, err
	}
	err = p.client.Create(ctx, volumeFor(&claim, class))
	if client.IgnoreAlreadyExists(err) != nil {
		return reconcile.Result{}, fmt.Errorf("provisioning a volume for PersistentVolumeClaim %s: %w", req, err)
	}
	return reconcile.Result{}, nil
}

// selectedNodeAnnotation is set on a claim by kube-scheduler once it has
// chosen the Node of the first pod that uses it.
const selectedNodeAnnotation = "volume.kubernetes.io/selected-node"

// waitsForConsumer reports whether claim is of a class that binds when a
// pod uses it (WaitForFirstConsumer) and no pod has been scheduled with it
// yet: the scheduler's annotation, an update, brings it back.
func waitsForConsumer(claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass) bool {
	wait := class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
	return wait && claim.Annotations[selectedNodeAnnotation] == ""
}

// classOf returns the StorageClass of claim if Provisioner provisions it,
// else nil. A claim without a class waits: the default class is set on it
// by kube-controller-manager, which updates it.
func (p *provisioner) classOf(ctx context.Context, claim *corev1.PersistentVolumeClaim) (*storagev1.StorageClass, error) {
	name := claim.Spec.StorageClassName
	if name == nil || *name == "" {
		return nil, nil
	}
	var class storagev1.StorageClass
	err := p.client.Get(ctx, client.ObjectKey{Name: *name}, &class)
	if apierrors.IsNotFound(err) || (err == nil && class.Provisioner != Provisioner) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading StorageClass %s of PersistentVolumeClaim %s/%s: %w", *name, claim.Namespace, claim.Name, err)
	}
	return &class, nil
}

// setupProvisioner registers the provisioner and the reclaimer with mgr.
func setupProvisioner(mgr ctrl.Manager) error {
	err := ctrl.NewControllerManagedBy(mgr).Named("localcloud-provisioner").
		For(&corev1.PersistentVolumeClaim{}).
		Watches(&storagev1.StorageClass{}, handler.EnqueueRequestsFromMapFunc(claimsOfClass(mgr.GetClient()))).
		WithOptions(controllerOptions()).
		Complete(&provisioner{client: mgr.GetClient()})
	if err != nil {
		return fmt.Errorf("setting up the local cluster's volume provisioner: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).Named("localcloud-reclaimer").
		For(&corev1.PersistentVolume{}).
		WithOptions(controllerOptions()).
		Complete(&reclaimer{client: mgr.GetClient()})
	if err != nil {
		return fmt.Errorf("setting up the local cluster's volume reclaimer: %w", err)
	}
	return nil
}

// claimsOfClass maps a StorageClass to the pending claims of its name, so
// that claims made before their class get their volume once it exists.
func claimsOfClass(c client.Client) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		var claims corev1.PersistentVolumeClaimList
		if err := c.List(ctx, &claims); err != nil {
			return nil
		}
		var requests []reconcile.Request
		for _, claim := range claims.Items {
			if claim.Spec.StorageClassName != nil && *claim.Spec.StorageClassName == obj.GetName() && claim.Spec.VolumeName == "" {
				requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&claim)})
			}
		}
		return requests
	}
}
