package fleet

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// Setup registers the ComponentSet controller of the operator named
// operator with mgr; notifier, when not nil, is told of waves done or held
// and of clusters that do not answer; it reads the cluster Secrets of
// namespaces (give the manager cache's; nil: all). When the API server
// does not serve ComponentSets (a CRD of an older release: Helm does not
// upgrade a chart's CRDs), it logs that and registers nothing, so the
// Components keep being reconciled.
func Setup(mgr ctrl.Manager, operator string, notifier notify.Sink, namespaces map[string]cache.Config, opts ...Option) error {
	gk := v1alpha1.GroupVersion.WithKind("ComponentSet").GroupKind()
	_, err := mgr.GetRESTMapper().RESTMapping(gk, v1alpha1.GroupVersion.Version)
	if err != nil {
		if meta.IsNoMatchError(err) {
			ctrl.Log.WithName("fleet").Info("the API server does not serve ComponentSets: their controller is off; apply the CRD of config/crd/bases and restart to turn it on")
			return nil
		}
		return fmt.Errorf("looking up the ComponentSet kind: %w", err)
	}
	r := &Reconciler{client: mgr.GetClient(), live: mgr.GetAPIReader(), keys: keysFor(operator),
		recorder: mgr.GetEventRecorder(operator), notifier: notifier, operator: operator}
	for _, o := range opts {
		o(r)
	}
	if r.capi, err = capiKind(mgr.GetRESTMapper()); err != nil {
		return err
	}
	if r.secrets, err = newSecretCaches(mgr, r.keys, !r.capi.Empty(), namespaces); err != nil {
		return err
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("componentset").
		For(&v1alpha1.ComponentSet{}).
		Owns(&v1alpha1.Component{}).
		WatchesRawSource(r.secretsSource(r.secrets.registered))
	if !r.capi.Empty() {
		b = b.WatchesRawSource(r.secretsSource(r.secrets.kubeconfigs))
		clusters := &metav1.PartialObjectMetadata{}
		clusters.SetGroupVersionKind(r.capi)
		b = b.WatchesMetadata(clusters, handler.EnqueueRequestsFromMapFunc(r.setsOfNamespace))
		ctrl.Log.WithName("fleet").Info("selecting Cluster API Clusters too", "kind", r.capi.String())
	}
	if b, err = r.watchPulled(mgr, b); err != nil {
		return err
	}
	if err := b.Complete(r); err != nil {
		return fmt.Errorf("setting up the ComponentSet controller: %w", err)
	}
	return nil
}

// Option configures the ComponentSet controller.
type Option func(*Reconciler)

// WithInputs reads the sets' Git and pull request inputs with reader;
// without it, a set reads only spec.inputs.list.
func WithInputs(reader *inputs.Reader) Option {
	return func(r *Reconciler) { r.inputs = reader }
}

// setsOfNamespace enqueues every set of the namespace of a cluster Secret
// that changed: any of them may select it.
func (r *Reconciler) setsOfNamespace(ctx context.Context, o client.Object) []reconcile.Request {
	list := &v1alpha1.ComponentSetList{}
	if err := r.client.List(ctx, list, client.InNamespace(o.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing the ComponentSets of a changed cluster Secret's namespace", "namespace", o.GetNamespace())
		return nil
	}
	requests := make([]reconcile.Request, 0, len(list.Items))
	for _, s := range list.Items {
		requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&s)})
	}
	return requests
}

// capiKind is the preferred version of Cluster API's Cluster kind, or
// empty when the API server does not serve it.
func capiKind(mapper meta.RESTMapper) (schema.GroupVersionKind, error) {
	mapping, err := mapper.RESTMapping(capiClusterKind)
	if meta.IsNoMatchError(err) {
		return schema.GroupVersionKind{}, nil
	}
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("looking up Cluster API's Cluster kind: %w", err)
	}
	return mapping.GroupVersionKind, nil
}

// secretsSource enqueues the sets of the namespace of each Secret of the
// cache secrets that changed.
func (r *Reconciler) secretsSource(secrets cache.Cache) source.Source {
	return source.Kind[client.Object](secrets, secretMetadata(), handler.EnqueueRequestsFromMapFunc(r.setsOfNamespace))
}
