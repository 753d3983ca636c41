package localcloud

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// reclaimer deletes the volumes that Provisioner made once
// kube-controller-manager has released them from their deleted claim, if
// their reclaim policy says Delete; a Retain volume stays Released.
type reclaimer struct {
	client client.Client
}

// Reconcile deletes one released volume of Provisioner with policy Delete.
func (r *reclaimer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var volume corev1.PersistentVolume
	if err := r.client.Get(ctx, req.NamespacedName, &volume); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if volume.Annotations[ProvisionedByAnnotation] != Provisioner || volume.DeletionTimestamp != nil ||
		volume.Status.Phase != corev1.VolumeReleased ||
		volume.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		return reconcile.Result{}, nil
	}
	if err := r.client.Delete(ctx, &volume); client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, fmt.Errorf("deleting released PersistentVolume %s: %w", volume.Name, err)
	}
	return reconcile.Result{}, nil
}
