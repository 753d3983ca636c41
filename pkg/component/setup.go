package component

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/wavekit-dev/wavekit/pkg/external"
)

// SetupWithManager registers the controller. Component events that change
// only status or metadata do not trigger a reconcile; events of applied
// objects do, unless the reconciler caused them itself.
func (r *Reconciler[T]) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	r.apiReader = mgr.GetAPIReader()
	r.renders = newRenderStore(r.client, r.apiReader)
	r.current = newCurrentRenders(r.renders)
	r.deps = newDependencyTracker[T](r.client, r.apiReader, r.opts.Selector)
	if err := r.deps.watchOutside(mgr); err != nil {
		return err
	}
	r.recorder = &boundedRecorder{mgr.GetEventRecorder(r.name)}
	r.targets = &targets{
		name: r.name, local: mgr.GetConfig(), scheme: mgr.GetScheme(), reader: mgr.GetAPIReader(),
		opts: r.opts, enqueue: r.Enqueue, byKey: map[targetKey]*target{}, byComponent: map[types.NamespacedName]targetKey{},
	}
	r.externals = r.newExternals()
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		r.targets.stopAll()
		if r.externals != nil {
			r.externals.Stop()
		}
		return nil
	})); err != nil {
		return fmt.Errorf("registering target cleanup: %w", err)
	}
	var zero T
	obj := reflect.New(reflect.TypeOf(zero).Elem()).Interface().(T)
	b := ctrl.NewControllerManagedBy(mgr).
		Named(r.name).
		For(obj, builder.WithPredicates(r.componentEvents())).
		WatchesRawSource(source.Channel(r.events, &handler.EnqueueRequestForObject{})).
		WatchesRawSource(source.Channel(r.resyncs, behindChanges())).
		Watches(obj, r.statusCaughtUp()).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.opts.MaxConcurrentReconciles, RateLimiter: r.opts.RateLimiter,
			ReconciliationTimeout: r.opts.ReconcileTimeout})
	if r.deps.enabled {
		b = b.Watches(obj, r.deps.events())
	}
	for _, w := range r.watches {
		b = b.Watches(w.object, w.handler, w.opts...)
	}
	if err := b.Complete(tracked{r: r, f: r.inflight}); err != nil {
		return fmt.Errorf("setting up controller %s: %w", r.name, err)
	}
	return nil
}

// behindChanges enqueues the component of a generic event with
// controller-runtime's LowPriority, as the initial list of components is:
// a change of another component goes first (with the priority queue; in
// arrival order without it).
func behindChanges() handler.TypedEventHandler[client.Object, reconcile.Request] {
	return handler.TypedFuncs[client.Object, reconcile.Request]{
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: e.Object.GetNamespace(), Name: e.Object.GetName()}}
			if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
				pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(handler.LowPriority)}, req)
				return
			}
			q.Add(req)
		},
	}
}

// statusCaughtUp tells the reconciler which version of each component its
// cache holds, so that it drops the copy of a status it wrote once the cache
// shows it; it enqueues nothing.
func (r *Reconciler[T]) statusCaughtUp() handler.TypedEventHandler[client.Object, reconcile.Request] {
	return handler.TypedFuncs[client.Object, reconcile.Request]{
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			r.status.caughtUp(e.ObjectNew)
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[client.Object], _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			r.status.uncached(e.Object)
		},
	}
}

// newExternals returns the manager of the reconciler's external
// dependents, nil when no provider is registered. A poll that finds a
// dependent changed or gone enqueues its component.
func (r *Reconciler[T]) newExternals() *external.Manager {
	if len(r.opts.ExternalProviders) == 0 {
		return nil
	}
	return external.NewManager(r.opts.ExternalProviders, r.opts.External, r.Enqueue)
}

// tracked records the reconciles of r in f.
type tracked struct {
	r reconcile.Reconciler
	f *inflight
}

func (t tracked) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	id := t.f.begin()
	defer t.f.end(id)
	return t.r.Reconcile(ctx, req)
}

// ReadyzCheck is a readiness check (manager.AddReadyzCheck) that fails while
// a reconcile has been running longer than ReconcilerOptions.ReconcileTimeout
// allows: a worker is stuck.
func (r *Reconciler[T]) ReadyzCheck(_ *http.Request) error {
	bound := r.opts.ReconcileTimeout + stuckGrace
	if longest := r.inflight.longest(); longest > bound {
		return fmt.Errorf("a reconcile of %s has been running for %s, longer than %s", r.name, longest.Round(time.Second), bound)
	}
	return nil
}
