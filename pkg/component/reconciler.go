package component

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/wavekit-dev/wavekit/pkg/component/catchup"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/dependencies"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/keptrender"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/passtrace"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/report"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Reconciler turns a component type T into a running component operator.
type Reconciler[T Component] struct {
	*core
}

// core is the Reconciler without its component type: what a Reconcile and
// its pass use, which needs T only to make an empty component (newObject)
// and to call the hooks added with With…Hook, which it takes as hookFuncs.
type core struct {
	name      string
	generator manifests.Generator
	opts      ReconcilerOptions

	client    client.Client
	apiReader client.Reader
	objects   *runtime.Scheme // of the objects rendered and applied (objectScheme)
	recorder  *bound.Recorder // every Event goes through its bound
	targets   *targets.Set
	events    chan event.GenericEvent
	// resyncs are the events of objects an informer lists when it starts
	// or a handler is added: enqueued behind every change (LowPriority).
	resyncs chan event.GenericEvent
	// forwarded is closed once nothing takes the channels' events to the
	// queue any more (the controller or lane stopped): a handler's send
	// then gives up rather than wait for ever, holding up the handlers of
	// other Reconcilers that share its informer (connections.Handlers).
	forwarded     chan struct{}
	closeForwards sync.Once
	status        *report.Written // the statuses written, until the cache shows them
	gauge         *stateGauge
	notes         *report.Notes
	held          *report.Notes // the held wave last told to the Notifier; nil without one
	inflight      *inflight
	// catchUp tells when every component found at the start was looked at.
	catchUp   *catchup.Tracker
	renders   *keptrender.Store    // kept renders, for a rollback
	current   *keptrender.Currents // each component's current render, applied until its inputs change
	hooks     *keptrender.Hooks
	pruned    *report.Pruned    // status fields the component's CRD drops
	externals *external.Manager // dependents outside Kubernetes; nil without providers
	traces    *passtrace.Tracer // nil while tracing is off

	owners *ownerIndex           // owner label value → component
	deps   *dependencies.Tracker // set by SetupWithManager

	on      reconcileHooks // the hooks added with With…Hook
	watches []watch
	// componentEventHandlers are the handlers added with
	// WithComponentHandler.
	componentEventHandlers []handler.EventHandler

	// newObject returns an empty component of type T.
	newObject func() Component
	// watchKinds and registerOwnerID are the Reconciler's watchDependents
	// and registerOwner (watch.go), which the pass calls.
	watchKinds      func(ctx context.Context, tg *targets.Target, inventory []manifests.InventoryItem) (bool, error)
	registerOwnerID func(ownerID string, id types.NamespacedName)
}

// hookFunc is a HookFunc of any component type.
type hookFunc func(ctx context.Context, c client.Client, component Component) error

// typed is h as a hookFunc.
func typed[T Component](h HookFunc[T]) hookFunc {
	return func(ctx context.Context, c client.Client, component Component) error { return h(ctx, c, component.(T)) }
}

// reconcileHooks are the hooks a Reconcile calls, at each point, in the
// order they were added.
type reconcileHooks struct {
	postRead, preReconcile, postReconcile, preDelete, postDelete []hookFunc
}

// watch is an extra event source added with WithWatch.
type watch struct {
	object  client.Object
	handler handler.EventHandler
	opts    []builder.WatchesOption
}

// eventBuffer is how many events the reconciler's channels hold before a
// sender waits for the queue to take them, which it does at once while
// the controller runs. A process that serves many kinds holds two such
// buffers a kind.
const eventBuffer = 128

// NewReconciler returns a reconciler for operator name (the annotation
// prefix, field owner and finalizer) that renders with generator.
func NewReconciler[T Component](name string, generator manifests.Generator, options ReconcilerOptions) *Reconciler[T] {
	r := &Reconciler[T]{&core{
		name: name, generator: generator, opts: options.withDefaults(name),
		events: make(chan event.GenericEvent, eventBuffer), resyncs: make(chan event.GenericEvent, eventBuffer),
		forwarded: make(chan struct{}), status: report.NewWritten(), gauge: newStateGauge(name), notes: report.NewNotes(),
		inflight: newInflight(), pruned: &report.Pruned{}, hooks: keptrender.NewHooks(),
		owners: newOwnerIndex(), traces: passtrace.New(options.TracerProvider),
		newObject: func() Component { return newObject[T]() },
	}}
	r.watchKinds, r.registerOwnerID = r.watchDependents, r.registerOwner
	if options.Notifier != nil {
		r.held = report.NewNotes()
	}
	return r
}

// WithPostReadHook adds a hook called after the component is read.
func (r *Reconciler[T]) WithPostReadHook(h HookFunc[T]) *Reconciler[T] {
	r.on.postRead = append(r.on.postRead, typed(h))
	return r
}

// WithPreReconcileHook adds a hook called before the objects are rendered and applied.
func (r *Reconciler[T]) WithPreReconcileHook(h HookFunc[T]) *Reconciler[T] {
	r.on.preReconcile = append(r.on.preReconcile, typed(h))
	return r
}

// WithPostReconcileHook adds a hook called once every object is applied and ready.
func (r *Reconciler[T]) WithPostReconcileHook(h HookFunc[T]) *Reconciler[T] {
	r.on.postReconcile = append(r.on.postReconcile, typed(h))
	return r
}

// WithPreDeleteHook adds a hook called before deletion starts (again on each
// attempt while deletion is blocked, so it must be idempotent).
func (r *Reconciler[T]) WithPreDeleteHook(h HookFunc[T]) *Reconciler[T] {
	r.on.preDelete = append(r.on.preDelete, typed(h))
	return r
}

// WithPostDeleteHook adds a hook called once every object is gone, before
// the finalizer is removed.
func (r *Reconciler[T]) WithPostDeleteHook(h HookFunc[T]) *Reconciler[T] {
	r.on.postDelete = append(r.on.postDelete, typed(h))
	return r
}

// WithWatch reconciles the components that fn maps events of object's kind
// to, as controller-runtime's builder Watches does; opts may ask for
// metadata only (builder.OnlyMetadata). Call it before SetupWithManager.
func (r *Reconciler[T]) WithWatch(object client.Object, fn handler.MapFunc, opts ...builder.WatchesOption) *Reconciler[T] {
	r.watches = append(r.watches, watch{object: object, handler: handler.EnqueueRequestsFromMapFunc(fn), opts: opts})
	return r
}

// WithComponentHandler calls h with every event of the reconciler's
// components as its cache sees them (each add, update and delete, whether
// or not it starts a reconcile), from the one handler the reconciler has
// on their informer: a handler added to that informer apart would be one
// more listener (two goroutines and a buffer) for the reconciler's life.
// The events of the components wait for h: it must not block for long.
// Call it before SetupWithManager.
func (r *Reconciler[T]) WithComponentHandler(h handler.EventHandler) *Reconciler[T] {
	r.componentEventHandlers = append(r.componentEventHandlers, h)
	return r
}

// Enqueue asks for a reconcile of the component id, as an event would:
// for example from an event handler of an informer added while running.
func (r *Reconciler[T]) Enqueue(id types.NamespacedName) {
	r.events <- event.GenericEvent{Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: id.Namespace, Name: id.Name}}}
}

// EnqueueWithin is Enqueue, unless ctx ends first (false): for a sender
// that must not wait on a reconciler that stopped, or is stopping, with
// its events' buffer full.
func (r *Reconciler[T]) EnqueueWithin(ctx context.Context, id types.NamespacedName) bool {
	select {
	case r.events <- event.GenericEvent{Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: id.Namespace, Name: id.Name}}}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (r *core) runHooks(ctx context.Context, hooks []hookFunc, component Component) error {
	for _, h := range hooks {
		if err := h(ctx, r.client, component); err != nil {
			return err
		}
	}
	return nil
}
