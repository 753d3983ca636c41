package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// lazyWatches starts an informer of a kind the first time a Component needs
// it, so that an operator whose Components use no Flux source or valuesFrom
// neither watches nor needs the rights to. A kind whose informer cannot list
// is an error of the Component that needs it, not of the operator's start.
type lazyWatches struct {
	cache cache.Cache

	mu      sync.Mutex
	started map[schema.GroupVersionKind]bool
}

// ensure starts the informer of obj's kind once, with handler. The lock is
// not held while the informer lists (up to watchStart): a kind that does
// not list in time never holds the Components that need another one. The
// cache returns one informer per kind however many ask at once.
func (w *lazyWatches) ensure(ctx context.Context, obj client.Object, handler toolscache.ResourceEventHandler) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if w.isStarted(gvk) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, watchStart)
	defer cancel()
	// Not the cache's own wait, which polls every 100 ms: the first valuesFrom
	// of a kind would wait that long for a list that takes a few.
	informer, err := w.cache.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if err == nil && !toolscache.WaitFor(ctx, "", informer.HasSyncedChecker()) {
		err = errors.New("not listed in time")
	}
	if err != nil {
		return component.Retriable(fmt.Errorf("watching %s: %w (may the operator list and watch them?)", gvk.Kind, err), 0)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started[gvk] {
		return nil // another Component got there first
	}
	if _, err := informer.AddEventHandler(handler); err != nil {
		return fmt.Errorf("watching %s: %w", gvk.Kind, err)
	}
	if w.started == nil {
		w.started = map[schema.GroupVersionKind]bool{}
	}
	w.started[gvk] = true
	return nil
}

func (w *lazyWatches) isStarted(gvk schema.GroupVersionKind) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started[gvk]
}

// watchValuesFrom watches, metadata only, the kinds c's valuesFrom reads, so
// that a change to one of those objects reconciles the Components using it.
func (o *operator) watchValuesFrom(ctx context.Context, c *v1alpha1.Component) error {
	for _, ref := range c.Spec.ValuesFrom {
		if ref.Kind == gitValuesKind {
			continue // looked at every interval, not watched
		}
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(ref.Kind))
		if err := o.watches.ensure(ctx, obj, o.changeHandler(ref.Kind)); err != nil {
			return fmt.Errorf("spec.valuesFrom: %w", err)
		}
	}
	return nil
}

// changeHandler reconciles the Components whose valuesFrom names an object
// of kind that was added, changed or deleted.
func (o *operator) changeHandler(kind string) toolscache.ResourceEventHandler {
	changed := func(obj any) {
		if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if m, ok := obj.(client.Object); ok {
			o.enqueueUsers(m.GetNamespace(), func(c *v1alpha1.Component) bool {
				return slices.ContainsFunc(c.Spec.ValuesFrom, func(ref v1alpha1.ValuesReference) bool {
					return ref.Kind == kind && ref.Name == m.GetName()
				})
			})
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: changed,
		UpdateFunc: func(old, obj any) {
			before, ok1 := old.(client.Object)
			after, ok2 := obj.(client.Object)
			if ok1 && ok2 && before.GetResourceVersion() != after.GetResourceVersion() {
				changed(obj)
			}
		},
		DeleteFunc: changed,
	}
}

// repositoryMoved reconciles the Components (namespace/name) whose Git
// repository's refs a look found moved: they look at the new refs at once
// rather than at their own interval.
func (o *operator) repositoryMoved(consumers []string) {
	if o.reconciler == nil {
		return
	}
	for _, c := range consumers {
		if namespace, name, ok := strings.Cut(c, "/"); ok {
			o.reconciler.Enqueue(types.NamespacedName{Namespace: namespace, Name: name})
		}
	}
}

// sourceChanged reconciles the Components of a Flux source whose artifact changed.
func (o *operator) sourceChanged(kind string, id types.NamespacedName) {
	o.enqueueUsers("", func(c *v1alpha1.Component) bool {
		ref := c.Spec.SourceRef
		return ref != nil && ref.Kind == kind && ref.Name == id.Name && orDefault(ref.Namespace, c.Namespace) == id.Namespace
	})
}

// enqueueUsers reconciles the Components (of namespace, if given) that uses
// selects. It filters the cached Components rather than a field index: an
// index would make the manager wait for the Component cache before it
// starts, and one that may not list Components could then not be stopped.
func (o *operator) enqueueUsers(namespace string, uses func(*v1alpha1.Component) bool) {
	list := &v1alpha1.ComponentList{}
	if err := o.client.List(context.Background(), list, client.InNamespace(namespace)); err != nil {
		return
	}
	for i := range list.Items {
		if c := &list.Items[i]; uses(c) {
			o.reconciler.Enqueue(types.NamespacedName{Namespace: c.Namespace, Name: c.Name})
		}
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
