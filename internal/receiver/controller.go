package receiver

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	crsource "sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// Reasons of a Receiver's Ready condition.
const (
	ReasonReady     = "Ready"
	ReasonNoToken   = "NoToken"
	ReasonSuspended = "Suspended"
)

// statusReconciler writes each Receiver's path and Ready condition, again
// when its Secret changes.
type statusReconciler struct {
	client client.Client
	// secrets reads the token from the API server: no Secret is cached.
	secrets client.Reader
}

// Reconcile writes the Receiver's status.
func (s *statusReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r := &v1alpha1.Receiver{}
	if err := s.client.Get(ctx, req.NamespacedName, r); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	before := r.Status.DeepCopy()
	token, err := readToken(ctx, s.secrets, r)
	condition := metav1.Condition{Type: component.ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonReady, ObservedGeneration: r.Generation}
	switch {
	case errors.Is(err, errNoToken):
		r.Status.WebhookPath = ""
		condition.Status, condition.Reason, condition.Message = metav1.ConditionFalse, ReasonNoToken,
			err.Error()+": create it with the token under the key "+v1alpha1.ReceiverTokenKey
	case err != nil:
		return ctrl.Result{}, err
	default:
		r.Status.WebhookPath = webhookPath(token, r.Name, r.Namespace)
		condition.Message = "takes the webhooks of path " + r.Status.WebhookPath
		if r.Spec.Suspend {
			condition.Status, condition.Reason = metav1.ConditionFalse, ReasonSuspended
			condition.Message = "suspended: the requests of path " + r.Status.WebhookPath + " get 503"
		}
	}
	meta.SetStatusCondition(&r.Status.Conditions, condition)
	r.Status.ObservedGeneration = r.Generation
	if equality.Semantic.DeepEqual(before, &r.Status) {
		return ctrl.Result{}, nil
	}
	if err := s.client.Status().Update(ctx, r); err != nil && !apierrors.IsConflict(err) {
		return ctrl.Result{}, fmt.Errorf("writing the status of Receiver %s/%s: %w", r.Namespace, r.Name, err)
	}
	return ctrl.Result{}, nil
}

// receiversOfSecret enqueues the Receivers of a Secret's namespace that
// name it.
func (s *statusReconciler) receiversOfSecret(ctx context.Context, o client.Object) []reconcile.Request {
	var list v1alpha1.ReceiverList
	if err := s.client.List(ctx, &list, client.InNamespace(o.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing the Receivers of a changed Secret's namespace", "namespace", o.GetNamespace())
		return nil
	}
	var out []reconcile.Request
	for _, r := range list.Items {
		if r.Spec.SecretRef.Name == o.GetName() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&r)})
		}
	}
	return out
}

// setupController registers the status controller with mgr; it watches
// the Secrets of namespaces (all when nil) through a cache of their
// versions (secretversions.go).
func setupController(mgr ctrl.Manager, s *statusReconciler, namespaces map[string]cache.Config) error {
	secrets, err := newSecretVersions(mgr, namespaces)
	if err != nil {
		return err
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("receiver").
		For(&v1alpha1.Receiver{}).
		WatchesRawSource(crsource.Kind[client.Object](secrets, secretMetadata(), handler.EnqueueRequestsFromMapFunc(s.receiversOfSecret))).
		Complete(s)
	if err != nil {
		return fmt.Errorf("setting up the Receiver controller: %w", err)
	}
	return nil
}
