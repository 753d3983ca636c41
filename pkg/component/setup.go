package component

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/wavekit-dev/wavekit/pkg/component/catchup"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/dependencies"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/component/pool"
	"github.com/wavekit-dev/wavekit/pkg/external"
)

// SetupWithManager registers the controller. Component events that change
// only status or metadata do not trigger a reconcile; events of applied
// objects do, unless the reconciler caused them itself. Its sources are
// one handler on the components' informer and one goroutine for its
// channels (sources.go).
func (r *Reconciler[T]) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	r.apiReader = mgr.GetAPIReader()
	r.objects = objectScheme(mgr)
	followKeys := r.setupKeptRenders(mgr)
	r.deps = dependencies.New(r.client, r.apiReader, r.opts.Selector, r.opts.Namespaces, func() api.Component { return newObject[T]() })
	if err := r.deps.WatchOutside(mgr); err != nil {
		return err
	}
	r.recorder = &bound.Recorder{EventRecorder: mgr.GetEventRecorder(r.name)}
	r.targets = targets.New(mgr.GetConfig(), r.objects, mgr.GetAPIReader(), r.targetOptions(), r.Enqueue)
	r.externals = r.newExternals()
	var zero T
	obj := reflect.New(reflect.TypeOf(zero).Elem()).Interface().(T)
	if err := r.followCatchUp(mgr, obj); err != nil {
		return err
	}
	waits := r.waitForServers(mgr)
	if err := r.runWhileLeading(mgr, followKeys, waits); err != nil {
		return err
	}
	gvk, err := apiutil.GVKForObject(obj, mgr.GetScheme())
	if err != nil {
		return fmt.Errorf("setting up controller %s: %w", r.name, err)
	}
	if r.opts.Pool != nil {
		return r.joinPool(mgr, obj, gvk, waits)
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named(r.name).
		WatchesRawSource(source.Kind[client.Object](mgr.GetCache(), obj, r.componentHandlers())).
		WatchesRawSource(r.channelSource()).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.opts.MaxConcurrentReconciles, RateLimiter: r.opts.RateLimiter,
			ReconciliationTimeout: r.opts.ReconcileTimeout, LogConstructor: componentLogs(mgr.GetLogger(), r.name, gvk)})
	for _, w := range r.watches {
		b = b.Watches(w.object, w.handler, w.opts...)
	}
	if err := b.Complete(tracked{r: r, f: r.inflight, catchUp: r.catchUp, waits: waits}); err != nil {
		return fmt.Errorf("setting up controller %s: %w", r.name, err)
	}
	return nil
}

// joinPool adds the reconciler to its pool as a lane of its own, with the
// sources its controller would have: its components' informer and its
// channels.
func (r *Reconciler[T]) joinPool(mgr ctrl.Manager, obj T, gvk schema.GroupVersionKind, waits *serverWaits) error {
	if len(r.watches) > 0 {
		return fmt.Errorf("setting up %s for %s: a reconciler in a pool takes no WithWatch", r.name, gvk.Kind)
	}
	lane := r.opts.Pool.Lane(gvk.String(), tracked{r: r, f: r.inflight, catchUp: r.catchUp, waits: waits}, pool.LaneOptions{
		Sources: []source.Source{source.Kind[client.Object](mgr.GetCache(), obj, r.componentHandlers()), r.channelSource()},
		Log:     componentLogs(mgr.GetLogger(), r.name, gvk), Timeout: r.opts.ReconcileTimeout,
	})
	if err := mgr.Add(lane); err != nil {
		return fmt.Errorf("setting up %s for %s in its pool: %w", r.name, gvk.Kind, err)
	}
	return nil
}

// statusCaughtUp tells the reconciler which version of each component its
// cache holds, so that it drops the copy of a status it wrote once the cache
// shows it; it enqueues nothing.
func (r *Reconciler[T]) statusCaughtUp() handler.TypedEventHandler[client.Object, reconcile.Request] {
	return handler.TypedFuncs[client.Object, reconcile.Request]{
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			r.status.CaughtUp(e.ObjectNew)
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[client.Object], _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			r.status.Uncached(e.Object)
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

// tracked records the reconciles of r in f, and each component looked at
// in catchUp; a pass that failed because an API server did not answer
// waits for that server (waits) rather than for a longer backoff.
type tracked struct {
	r       reconcile.Reconciler
	f       *inflight
	catchUp *catchup.Tracker
	waits   *serverWaits
}

func (t tracked) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	id := t.f.begin()
	defer t.f.end(id)
	defer t.catchUp.Seen(req.NamespacedName)
	res, err := t.r.Reconcile(ctx, req)
	return t.waits.settle(req.NamespacedName, res, err)
}

// waitForServers returns what holds the components whose pass failed
// because their API server did not answer, and asks that server, while
// the replica leads, whether it is back (serverwait.go).
func (r *Reconciler[T]) waitForServers(mgr ctrl.Manager) *serverWaits {
	local := r.targets.Local().Host
	waits := &serverWaits{
		operator: r.name, log: mgr.GetLogger().WithName("serverwait").WithValues("controller", r.name), retry: r.opts.RetryInterval,
		hostOf: func(id types.NamespacedName) string {
			if host := r.targets.HostOf(id); host != "" {
				return host
			}
			return local
		},
		configOf: r.targets.ConfigOf,
		enqueue: func(ctx context.Context, id types.NamespacedName) {
			select {
			case r.events <- event.GenericEvent{Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: id.Namespace, Name: id.Name}}}:
			case <-ctx.Done():
			}
		},
	}
	return waits
}

// runWhileLeading adds to mgr the one runnable of what lives while the
// replica leads, besides the controller: the probes of API servers that
// do not answer (waits), the following of the render keys, and, once it
// ends, the targets' and external dependents' stop. One goroutine for all
// of them: a process that serves many kinds runs one a kind.
func (r *Reconciler[T]) runWhileLeading(mgr ctrl.Manager, followKeys func(context.Context) error, waits *serverWaits) error {
	err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		waits.start(ctx)
		defer func() {
			r.targets.StopAll()
			if r.externals != nil {
				r.externals.Stop()
			}
		}()
		return followKeys(ctx)
	}))
	if err != nil {
		return fmt.Errorf("registering what %s runs while it leads: %w", r.name, err)
	}
	return nil
}

// CaughtUp is closed once the reconciler, after it started leading, has
// looked at every component of its own it found then: from then on, every
// status says what a pass of this replica saw, not what the replica before
// it saw. Before SetupWithManager it is nil.
func (r *Reconciler[T]) CaughtUp() <-chan struct{} {
	if r.catchUp == nil {
		return nil
	}
	return r.catchUp.Done()
}

// followCatchUp starts, once the replica leads, the catch-up of the
// components of obj's type this reconciler handles, as its cache lists them
// (package catchup): its end is logged and wavekit_catchup_pending counts
// down to it.
func (r *Reconciler[T]) followCatchUp(mgr ctrl.Manager, obj T) error {
	r.catchUp = catchup.New(r.name, mgr.GetLogger().WithName("catchup"))
	gvk, err := apiutil.GVKForObject(obj, mgr.GetScheme())
	if err != nil {
		return fmt.Errorf("catch-up of %s: %w", r.name, err)
	}
	err = mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { // runs while leading
		r.catchUp.Start()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return nil // stopping
		}
		keys, err := r.listSelected(ctx, mgr, gvk)
		if err != nil {
			// The catch-up only informs: it does not stop the operator,
			// whose controller reports what keeps it from reading.
			mgr.GetLogger().Error(err, "the catch-up cannot list", "kind", gvk.Kind)
			return nil
		}
		r.catchUp.Expect(keys)
		return nil
	}))
	if err != nil {
		return fmt.Errorf("registering the catch-up of %s: %w", r.name, err)
	}
	return nil
}

// listSelected lists, from the cache, the components of kind gvk this
// reconciler handles.
func (r *Reconciler[T]) listSelected(ctx context.Context, mgr ctrl.Manager, gvk schema.GroupVersionKind) ([]types.NamespacedName, error) {
	listObj, err := mgr.GetScheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return nil, err
	}
	list, ok := listObj.(client.ObjectList)
	if !ok {
		return nil, fmt.Errorf("%T is no list", listObj)
	}
	if err := mgr.GetCache().List(ctx, list); err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	keys := make([]types.NamespacedName, 0, len(items))
	for _, item := range items {
		if c, ok := item.(T); ok && r.selects(c) {
			keys = append(keys, types.NamespacedName{Namespace: c.GetNamespace(), Name: c.GetName()})
		}
	}
	return keys, nil
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

// objectScheme is the scheme of the objects the components render and
// their targets apply: the manager's, unless the manager holds the
// components' kind in a scheme of its own and gives the one for objects
// apart (a served kind's view, package dynamic: its scheme holds the kind,
// the manager's holds every other type, once a process).
func objectScheme(mgr ctrl.Manager) *runtime.Scheme {
	if v, ok := mgr.(interface{ ObjectScheme() *runtime.Scheme }); ok {
		return v.ObjectScheme()
	}
	return mgr.GetScheme()
}
