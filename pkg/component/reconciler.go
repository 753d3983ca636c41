package component

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Reconciler turns a component type T into a running component operator.
type Reconciler[T Component] struct {
	name      string
	generator manifests.Generator
	opts      ReconcilerOptions

	client    client.Client
	apiReader client.Reader
	recorder  *boundedRecorder // every Event goes through its bound
	targets   *targets
	events    chan event.GenericEvent
	status    *writtenStatus[T]
	gauge     *stateGauge
	notes     *eventNotes
	inflight  *inflight
	renders   *renderStore // kept renders, for a rollback
	hooks     *keptHooks
	ahead     *aheadRenders     // the render of a write ahead, for the Reconcile after it
	pruned    *prunedStatus     // status fields the component's CRD drops
	externals *external.Manager // dependents outside Kubernetes; nil without providers
	traces    *passTraces       // nil while tracing is off

	mu     sync.Mutex
	owners map[string]types.NamespacedName // owner label value → component
	deps   *dependencyTracker[T]           // set by SetupWithManager

	postRead, preReconcile, postReconcile, preDelete, postDelete []HookFunc[T]
	watches                                                      []watch
}

// watch is an extra event source added with WithWatch.
type watch struct {
	object  client.Object
	handler handler.EventHandler
	opts    []builder.WatchesOption
}

// NewReconciler returns a reconciler for operator name (the annotation
// prefix, field owner and finalizer) that renders with generator.
func NewReconciler[T Component](name string, generator manifests.Generator, options ReconcilerOptions) *Reconciler[T] {
	return &Reconciler[T]{
		name: name, generator: generator, opts: options.withDefaults(name),
		events: make(chan event.GenericEvent, 1024),
		status: newWrittenStatus[T](), gauge: newStateGauge(name), notes: newEventNotes(),
		inflight: newInflight(), pruned: &prunedStatus{}, hooks: newKeptHooks(), ahead: newAheadRenders(),
		owners: map[string]types.NamespacedName{}, traces: newPassTraces(options.TracerProvider),
	}
}

// WithPostReadHook adds a hook called after the component is read.
func (r *Reconciler[T]) WithPostReadHook(h HookFunc[T]) *Reconciler[T] {
	r.postRead = append(r.postRead, h)
	return r
}

// WithPreReconcileHook adds a hook called before the objects are rendered and applied.
func (r *Reconciler[T]) WithPreReconcileHook(h HookFunc[T]) *Reconciler[T] {
	r.preReconcile = append(r.preReconcile, h)
	return r
}

// WithPostReconcileHook adds a hook called once every object is applied and ready.
func (r *Reconciler[T]) WithPostReconcileHook(h HookFunc[T]) *Reconciler[T] {
	r.postReconcile = append(r.postReconcile, h)
	return r
}

// WithPreDeleteHook adds a hook called before deletion starts (again on each
// attempt while deletion is blocked, so it must be idempotent).
func (r *Reconciler[T]) WithPreDeleteHook(h HookFunc[T]) *Reconciler[T] {
	r.preDelete = append(r.preDelete, h)
	return r
}

// WithPostDeleteHook adds a hook called once every object is gone, before
// the finalizer is removed.
func (r *Reconciler[T]) WithPostDeleteHook(h HookFunc[T]) *Reconciler[T] {
	r.postDelete = append(r.postDelete, h)
	return r
}

// WithWatch reconciles the components that fn maps events of object's kind
// to, as controller-runtime's builder Watches does; opts may ask for
// metadata only (builder.OnlyMetadata). Call it before SetupWithManager.
func (r *Reconciler[T]) WithWatch(object client.Object, fn handler.MapFunc, opts ...builder.WatchesOption) *Reconciler[T] {
	r.watches = append(r.watches, watch{object: object, handler: handler.EnqueueRequestsFromMapFunc(fn), opts: opts})
	return r
}

// Enqueue asks for a reconcile of the component id, as an event would:
// for example from an event handler of an informer added while running.
func (r *Reconciler[T]) Enqueue(id types.NamespacedName) {
	r.events <- event.GenericEvent{Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: id.Namespace, Name: id.Name}}}
}

// SetupWithManager registers the controller. Component events that change
// only status or metadata do not trigger a reconcile; events of applied
// objects do, unless the reconciler caused them itself.
func (r *Reconciler[T]) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	r.apiReader = mgr.GetAPIReader()
	r.renders = newRenderStore(r.client, r.apiReader)
	r.deps = newDependencyTracker[T](r.client, r.apiReader, r.opts.Selector)
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

// specOrDeletionChanged lets through creations, deletions, spec changes
// (generation), the start of deletion and annotation edits during it; not
// other status or metadata edits.
func specOrDeletionChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
				return true
			}
			if e.ObjectNew.GetDeletionTimestamp() != nil && !maps.Equal(e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations()) {
				return true // e.g. delete-policy: orphan, to end a deletion that waits for a lost target
			}
			return (e.ObjectOld.GetDeletionTimestamp() == nil) != (e.ObjectNew.GetDeletionTimestamp() == nil)
		},
	}
}

func (r *Reconciler[T]) forget(id types.NamespacedName) {
	r.status.forget(id)
	r.notes.forget(id)
	r.hooks.forget(id)
	r.ahead.forget(id)
	r.traces.forget(id)
	r.forgetExternals(id)
	if r.renders != nil {
		r.renders.forget(id)
	}
	r.gauge.observe(id.String(), nil)
	objectWrites.DeleteLabelValues(r.name, id.Namespace, id.Name)
	if r.targets != nil {
		r.targets.release(id)
	}
}

func (r *Reconciler[T]) runHooks(ctx context.Context, hooks []HookFunc[T], component T) error {
	for _, h := range hooks {
		if err := h(ctx, r.client, component); err != nil {
			return err
		}
	}
	return nil
}
