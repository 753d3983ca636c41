package targets

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	apiwatch "k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/wavekit-dev/wavekit/pkg/rewatch"
)

// ObjectRef names one object in a target: its kind, namespace and name.
type ObjectRef struct {
	GVK schema.GroupVersionKind
	types.NamespacedName
}

func (o ObjectRef) String() string { return o.GVK.Kind + " " + o.NamespacedName.String() }

// ObjectWatches are the watches of the objects that the components of one
// target wait for (ObjectDependency). Each watches one object (a field
// selector on its name, metadata only) as the target's identity, is shared
// by every component waiting for that object, enqueues them when it
// changes, and stops once none waits or the target stops. Its lock is never
// held across a request: watches list and watch in their own goroutines.
type ObjectWatches struct {
	ctx     context.Context // the target's: every watch ends with it
	config  *rest.Config    // the target's
	enqueue func(types.NamespacedName)
	running atomic.Int64 // watches whose goroutine has not returned

	mu      sync.Mutex
	client  metadata.Interface // made on first use
	watches map[ObjectRef]*objectWatch
	waiting map[types.NamespacedName]ObjectRef // component → the object it waits for
}

// objectWatch is the watch of one object.
type objectWatch struct {
	cancel  context.CancelFunc
	waiters map[types.NamespacedName]bool
	err     error // the last list or watch error, until a watch starts
}

func newObjectWatches(ctx context.Context, config *rest.Config, enqueue func(types.NamespacedName)) *ObjectWatches {
	return &ObjectWatches{ctx: ctx, config: config, enqueue: enqueue,
		watches: map[ObjectRef]*objectWatch{}, waiting: map[types.NamespacedName]ObjectRef{}}
}

// Wait makes component id wait for ref, of resource, and for no other
// object of this target: it starts the watch of ref or joins it. It returns
// why ref is not watched, if it is not: the watch's last list or watch
// error (its failures enqueue the waiting components, so the next pass
// says so).
func (o *ObjectWatches) Wait(id types.NamespacedName, ref ObjectRef, resource schema.GroupVersionResource) error {
	o.mu.Lock()
	if current, ok := o.waiting[id]; ok && current == ref {
		err := o.watches[ref].err
		o.mu.Unlock()
		return err
	}
	o.releaseLocked(id)
	w, shared := o.watches[ref]
	if !shared {
		var err error
		if w, err = o.startLocked(ref, resource); err != nil {
			o.mu.Unlock()
			return err
		}
	}
	w.waiters[id] = true
	o.waiting[id] = ref
	err := w.err
	o.mu.Unlock()
	if shared {
		// A change between the component's read and now went only to the
		// others: one more look. (A new watch's first list reports the
		// object as added, which does the same.)
		o.enqueue(id)
	}
	return err
}

// Release makes component id wait for no object of this target.
func (o *ObjectWatches) Release(id types.NamespacedName) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.releaseLocked(id)
}

// releaseLocked stops the watch that only id waited for.
func (o *ObjectWatches) releaseLocked(id types.NamespacedName) {
	ref, ok := o.waiting[id]
	if !ok {
		return
	}
	delete(o.waiting, id)
	w := o.watches[ref]
	delete(w.waiters, id)
	if len(w.waiters) == 0 {
		w.cancel()
		delete(o.watches, ref)
	}
}

// startLocked starts the watch of ref: a list and watch of its resource in
// its namespace with a field selector on its name, so that nothing else is
// cached, and an informer that enqueues its waiters on every event.
func (o *ObjectWatches) startLocked(ref ObjectRef, resource schema.GroupVersionResource) (*objectWatch, error) {
	if o.client == nil {
		c, err := metadata.NewForConfig(rewatch.Config(o.config))
		if err != nil {
			return nil, fmt.Errorf("watching %s: %w", ref, err)
		}
		o.client = c
	}
	ctx, cancel := context.WithCancel(o.ctx)
	w := &objectWatch{cancel: cancel, waiters: map[types.NamespacedName]bool{}}
	objects := o.client.Resource(resource).Namespace(ref.Namespace)
	selector := fields.OneTermEqualSelector("metadata.name", ref.Name).String()
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = selector
			list, err := objects.List(ctx, opts)
			if err != nil {
				o.failed(ctx, w, err)
				return nil, err
			}
			return list, nil
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (apiwatch.Interface, error) {
			opts.FieldSelector = selector
			events, err := objects.Watch(ctx, opts)
			o.failed(ctx, w, err) // a watch that starts clears the error
			return events, err
		},
	}
	changed := func(any) { o.changed(w) }
	// Wrapped, so that the watch outlasts the target's API server's restarts.
	example := &metav1.PartialObjectMetadata{}
	wrapped := rewatch.Wrap(lw, example, o.config.Host, ref.GVK.GroupKind().String())
	store, informer := toolscache.NewInformerWithOptions(toolscache.InformerOptions{
		ListerWatcher: wrapped,
		ObjectType:    example,
		Handler: toolscache.ResourceEventHandlerFuncs{
			AddFunc: changed, DeleteFunc: changed,
			UpdateFunc: func(_, obj any) { changed(obj) },
		},
	})
	wrapped.SetStore(store)
	o.running.Add(1)
	go func() {
		defer o.running.Add(-1)
		informer.RunWithContext(ctx)
	}()
	o.watches[ref] = w
	return w, nil
}

// changed enqueues the components waiting for w's object.
func (o *ObjectWatches) changed(w *objectWatch) {
	o.mu.Lock()
	ids := make([]types.NamespacedName, 0, len(w.waiters))
	for id := range w.waiters {
		ids = append(ids, id)
	}
	o.mu.Unlock()
	for _, id := range ids {
		o.enqueue(id)
	}
}

// failed records the outcome of a list or watch request of w (err nil for
// a watch that started) and enqueues w's waiters when w starts or stops
// failing, so that their status says why the object is not watched, or no
// longer does. (Not on every new error: a reflector alternates a refused
// watch-list and list.) A stopped watch's requests fail for that alone: not
// recorded.
func (o *ObjectWatches) failed(ctx context.Context, w *objectWatch, err error) {
	if ctx.Err() != nil {
		return
	}
	o.mu.Lock()
	turned := (w.err == nil) != (err == nil)
	w.err = err
	o.mu.Unlock()
	if turned {
		o.changed(w)
	}
}

// Counts returns how many watches there are and how many goroutines of
// watches have not returned yet (stopped ones may still be returning).
func (o *ObjectWatches) Counts() (watches, running int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.watches), int(o.running.Load())
}

// ObjectWatches returns how many watches of objects that components wait
// for the set's targets have, and how many of their goroutines have not
// returned yet.
func (t *Set) ObjectWatches() (watches, running int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tg := range t.byKey {
		w, n := tg.Objects.Counts()
		watches, running = watches+w, running+n
	}
	return watches, running
}
