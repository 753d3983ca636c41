package definition

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// Options configure the controller of ComponentDefinitions.
type Options struct {
	// Name is the operator's name: annotation prefix, finalizer, labels.
	Name string
	// Sources resolves sources and renders instances (the Components').
	Sources *operator.DefinitionSources
	// Reconciler configures the reconcilers of the instances, as the
	// Components' (shards, lockdown, tracing, alerts…).
	Reconciler component.ReconcilerOptions
	// AllowedGroups are the API groups definitions may use (globs whose *
	// stands for one label of the group); empty: any group that is not
	// Kubernetes' or the operator's.
	AllowedGroups []string
	// ServeOnly serves the kinds of definitions the main process wrote and
	// writes nothing: a shard other than the main one.
	ServeOnly bool
	// Notifier, when set, is told of rollouts that halt.
	Notifier notify.Sink
}

// Setup registers the controller of ComponentDefinitions with mgr and
// returns the kinds it serves. When the API server does not serve
// ComponentDefinitions (a CRD of an older release), it logs that and
// registers nothing.
func Setup(mgr ctrl.Manager, opts Options) (*Kinds, error) {
	gk := v1alpha1.GroupVersion.WithKind("ComponentDefinition").GroupKind()
	if _, err := mgr.GetRESTMapper().RESTMapping(gk, v1alpha1.GroupVersion.Version); err != nil {
		if meta.IsNoMatchError(err) {
			ctrl.Log.WithName("definition").Info("the API server does not serve ComponentDefinitions: their controller is off; apply the CRDs of config/crd/bases and restart to turn it on")
			return nil, nil
		}
		return nil, fmt.Errorf("looking up the ComponentDefinition kind: %w", err)
	}
	kinds, err := newKinds(mgr, opts)
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(kinds); err != nil {
		return nil, fmt.Errorf("registering the served kinds: %w", err)
	}
	events := make(chan event.GenericEvent, 1024)
	kinds.changed = func(definition string) {
		select {
		case events <- event.GenericEvent{Object: &v1alpha1.ComponentDefinition{ObjectMeta: metav1.ObjectMeta{Name: definition}}}:
		case <-kinds.stopping():
		}
	}
	r := &reconciler{client: mgr.GetClient(), api: mgr.GetAPIReader(), kinds: kinds, opts: opts,
		recorder: mgr.GetEventRecorder(opts.Name), resolved: newResolutions(), checked: newCheckedCRDs(), label: manifests.Key(opts.Name, crdgen.LabelDefinition)}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("componentdefinition").
		// A pass for a change of instances counts them and moves the
		// rollout; with one worker, 50 kinds installing 1 000 instances
		// left their definitions' status 45 s behind.
		WithOptions(controller.Options{MaxConcurrentReconciles: concurrentDefinitions}).
		For(&v1alpha1.ComponentDefinition{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, deletionStarted()))).
		Watches(&apiextensionsv1.CustomResourceDefinition{}, handler.EnqueueRequestsFromMapFunc(r.byLabel)).
		WatchesRawSource(source.Channel(events, &handler.EnqueueRequestForObject{}))
	var rec reconcile.Reconciler = r
	if opts.ServeOnly {
		rec = &server{cache: mgr.GetClient(), kinds: kinds}
	}
	if err := b.Complete(rec); err != nil {
		return nil, fmt.Errorf("setting up the ComponentDefinition controller: %w", err)
	}
	return kinds, nil
}

// concurrentDefinitions is how many definitions are reconciled at once
// (one definition is never reconciled twice at once).
const concurrentDefinitions = 4

// byLabel maps an object the operator wrote for a definition (its CRD)
// to the definition.
func (r *reconciler) byLabel(_ context.Context, obj client.Object) []reconcile.Request {
	if name := obj.GetLabels()[r.label]; name != "" {
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: name}}}
	}
	return nil
}

// deletionStarted lets through the update that starts a deletion.
func deletionStarted() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
	}}
}

// CacheFor adds to base what the controller of the operator named name
// caches of CRDs and ClusterRoles: only those it wrote for a definition
// (labelled <name>/definition), not every CRD of the cluster, and the CRDs
// without their schemas (crdcache.go).
func CacheFor(name string, base cache.Options) cache.Options {
	written, err := labels.NewRequirement(manifests.Key(name, crdgen.LabelDefinition), selection.Exists, nil)
	if err != nil {
		panic(err) // a valid operator name makes a valid label key
	}
	selector := labels.NewSelector().Add(*written)
	if base.ByObject == nil {
		base.ByObject = map[client.Object]cache.ByObject{}
	}
	base.ByObject[&apiextensionsv1.CustomResourceDefinition{}] = cache.ByObject{Label: selector, Transform: withoutSchemas}
	base.ByObject[&rbacv1.ClusterRole{}] = cache.ByObject{Label: selector}
	return base
}
