package definition

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/instance"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/component/dynamic"
	"github.com/wavekit-dev/wavekit/pkg/component/pool"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Kinds are the kinds being served: one component reconciler each, on the
// running manager.
type Kinds struct {
	mgr     ctrl.Manager
	name    string
	sources *operator.DefinitionSources
	opts    component.ReconcilerOptions
	// changed is told the definition whose instances changed.
	changed func(definition string)

	mu      sync.Mutex
	served  map[string]*servedKind // by definition name
	ctx     context.Context
	started chan struct{} // closed once ctx is set
}

// servedKind is one kind being served.
type servedKind struct {
	gvk        schema.GroupVersionKind
	reconciler *component.Reconciler[*instance.Instance]
	binder     *binder
	served     *dynamic.Served
}

// stop stops serving the kind: its binder first, so that nothing lists the
// kind once its informer is gone.
func (s *servedKind) stop() error {
	s.binder.close()
	return s.served.Stop()
}

// newKinds returns what serves kinds on mgr once Start ran.
func newKinds(mgr ctrl.Manager, opts Options) (*Kinds, error) {
	ropts := opts.Reconciler
	ropts.Filter = nil
	workers, err := newWorkers(mgr, opts)
	if err != nil {
		return nil, err
	}
	ropts.Pool = workers
	return &Kinds{mgr: mgr, name: opts.Name, sources: opts.Sources, opts: ropts,
		served: map[string]*servedKind{}, started: make(chan struct{})}, nil
}

// newWorkers is the pool of workers every served kind's reconciler works
// in, a lane each: as many as the Components' controller has, whatever the
// number of kinds (each kind's own controller was 8 workers and a queue of
// 5 goroutines a kind, about 90 KiB of stacks).
func newWorkers(mgr ctrl.Manager, opts Options) (*pool.Pool, error) {
	workers := opts.Reconciler.MaxConcurrentReconciles
	if workers <= 0 {
		workers = component.DefaultMaxConcurrentReconciles
	}
	p, err := pool.New(opts.Name, pool.Options{Workers: workers, UsePriorityQueue: mgr.GetControllerOptions().UsePriorityQueue,
		Logger: mgr.GetLogger()})
	if err != nil {
		return nil, fmt.Errorf("the workers of the served kinds: %w", err)
	}
	if err := mgr.Add(p); err != nil {
		return nil, fmt.Errorf("the workers of the served kinds: %w", err)
	}
	return p, nil
}

// stopping is closed once the kinds stop being served (the replica stops
// leading): nothing waits on them from then on.
func (k *Kinds) stopping() <-chan struct{} {
	select {
	case <-k.started:
		return k.ctx.Done()
	default:
		return nil
	}
}

// Start keeps ctx as the life of the kinds served from then on (a
// manager.Runnable: it runs while the replica leads), and tells them of
// the changes of their definitions meanwhile (followDefinitions).
func (k *Kinds) Start(ctx context.Context) error {
	unfollow, err := k.followDefinitions(ctx)
	if err != nil {
		return err
	}
	defer unfollow()
	k.mu.Lock()
	k.ctx = ctx
	close(k.started)
	k.mu.Unlock()
	<-ctx.Done()
	k.mu.Lock()
	defer k.mu.Unlock()
	for name, s := range k.served {
		_ = s.stop()
		delete(k.served, name)
	}
	return nil
}

// followDefinitions adds to the informer of ComponentDefinitions one
// handler that tells each served kind of the changes of its definition
// (definitionMoved), for every kind: a handler a kind (a listener of two
// goroutines and a 16 KiB buffer each) was the most of what a kind cost on
// that informer. It returns what takes the handler away.
func (k *Kinds) followDefinitions(ctx context.Context) (func(), error) {
	informer, err := k.mgr.GetCache().GetInformer(ctx, &v1alpha1.ComponentDefinition{})
	if err != nil {
		return nil, fmt.Errorf("watching ComponentDefinitions for the served kinds: %w", err)
	}
	registration, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    k.definitionMoved,
		UpdateFunc: func(old, obj any) { k.definitionMoved(old); k.definitionMoved(obj) },
		DeleteFunc: k.definitionMoved,
	})
	if err != nil {
		return nil, fmt.Errorf("watching ComponentDefinitions for the served kinds: %w", err)
	}
	return func() { _ = informer.RemoveEventHandler(registration) }, nil
}

// definitionMoved asks the kind of obj, a ComponentDefinition (as it was
// before a change, or after it), if it is served, to bind again at once
// the instances whose revision it changes (binder.moved). It gives up once
// the kind stops being served.
func (k *Kinds) definitionMoved(obj any) {
	if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	def, ok := obj.(*v1alpha1.ComponentDefinition)
	if !ok {
		return
	}
	k.mu.Lock()
	s := k.served[def.Name]
	k.mu.Unlock()
	if s == nil {
		return
	}
	for _, req := range s.binder.moved(s.binder.life, def) {
		if !s.reconciler.EnqueueWithin(s.binder.life, req.NamespacedName) {
			return
		}
	}
}

// GVK is the kind def serves.
func GVK(def *v1alpha1.ComponentDefinition) schema.GroupVersionKind {
	version := def.Spec.Version
	if version == "" {
		version = "v1alpha1"
	}
	return schema.GroupVersionKind{Group: def.Spec.Group, Version: version, Kind: def.Spec.Names.Kind}
}

// Served tells whether def's kind is served.
func (k *Kinds) Served(def *v1alpha1.ComponentDefinition) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.served[def.Name]
	return ok
}

// Serve serves def's kind, whose CRD is established, unless it is served
// already.
func (k *Kinds) Serve(def *v1alpha1.ComponentDefinition) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.served[def.Name]; ok {
		return nil
	}
	if k.ctx == nil {
		return fmt.Errorf("serving %s: the replica does not lead yet", def.Name)
	}
	gvk := GVK(def)
	b := newBinder(k.mgr.GetCache(), k.name, def.Name, gvk)
	r := component.NewReconciler[*instance.Instance](k.name, instance.Generator{Sources: k.sources}, k.reconcilerOptions(def)).
		WithPostReadHook(b.bind).
		WithComponentHandler(k.instancesChanged(def.Name))
	served, err := dynamic.Start(k.ctx, k.mgr, gvk, r, dynamic.Options{})
	if err != nil {
		return err
	}
	k.served[def.Name] = &servedKind{gvk: gvk, reconciler: r, binder: b, served: served}
	ctrl.Log.WithName("definition").Info("serving", "definition", def.Name, "kind", gvk.String())
	return nil
}

// LabelInstanceOf is the suffix of the label "<operator>/instance-of" that
// the objects of a defined kind's instances carry: the definition's name.
const LabelInstanceOf = "instance-of"

// reconcilerOptions are the options of def's kind's reconciler: the
// operator's, and the label LabelInstanceOf on every object its instances
// apply. The label is an ObjectLabel, not a DependentLabel: the target
// caches do not select by it, so every served kind (and the Components)
// shares one connection, cache and watch of each kind of object per
// cluster, where each kind once had caches of its own (3.3 MiB a kind).
func (k *Kinds) reconcilerOptions(def *v1alpha1.ComponentDefinition) component.ReconcilerOptions {
	return instanceOptions(k.name, k.opts, def)
}

// instanceOptions are opts, of the operator of name, with the label
// LabelInstanceOf of def's instances.
func instanceOptions(name string, opts component.ReconcilerOptions, def *v1alpha1.ComponentDefinition) component.ReconcilerOptions {
	labels := maps.Clone(opts.ObjectLabels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[manifests.Key(name, LabelInstanceOf)] = def.Name
	opts.ObjectLabels = labels
	return opts
}

// instancesChanged tells changed of every change of an instance of
// definition's kind: a handler of the kind's reconciler, which has one on
// their informer (one handler there of its own was one more listener, of
// two goroutines and a buffer, a kind).
func (k *Kinds) instancesChanged(definition string) handler.EventHandler {
	if k.changed == nil {
		return handler.Funcs{}
	}
	tell := func() { k.changed(definition) }
	return handler.Funcs{
		CreateFunc: func(context.Context, event.CreateEvent, workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			tell()
		},
		UpdateFunc: func(context.Context, event.UpdateEvent, workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			tell()
		},
		DeleteFunc: func(context.Context, event.DeleteEvent, workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			tell()
		},
	}
}

// Stop stops serving def's kind.
func (k *Kinds) Stop(definition string) error {
	k.mu.Lock()
	s, ok := k.served[definition]
	delete(k.served, definition)
	k.mu.Unlock()
	if !ok {
		return nil
	}
	ctrl.Log.WithName("definition").Info("no longer serving", "definition", definition, "kind", s.gvk.String())
	return s.stop()
}

// Instances lists the instances of def's kind from the cache, once served.
func (k *Kinds) Instances(ctx context.Context, def *v1alpha1.ComponentDefinition) ([]unstructured.Unstructured, error) {
	return listInstances(ctx, k.mgr.GetCache(), GVK(def))
}

func listInstances(ctx context.Context, reader client.Reader, gvk schema.GroupVersionKind) ([]unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := reader.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing the instances of %s: %w", gvk.Kind, err)
	}
	return list.Items, nil
}
