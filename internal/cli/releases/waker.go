package releases

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// pollInterval is how long a waiting apply or delete sleeps when no event
// wakes it earlier.
const pollInterval = 2 * time.Second

// waker wakes a waiting apply or delete when an object of its inventory
// changes (an event of the owner-label cache), or after pollInterval.
type waker struct {
	cache   cache.Cache
	events  chan struct{}
	watched map[schema.GroupVersionKind]bool
	// gone is told of each object a delete event takes out of the cache
	// (engine.Applier.ObjectGone).
	gone func(client.Object)
}

func newWaker(c cache.Cache, gone func(client.Object)) *waker {
	return &waker{cache: c, events: make(chan struct{}, 1), watched: map[schema.GroupVersionKind]bool{}, gone: gone}
}

// wait returns after an event on a kind of the inventory or after the poll
// interval; it fails only when ctx ends.
func (w *waker) wait(ctx context.Context, inventory []manifests.InventoryItem) error {
	for _, item := range inventory {
		w.watch(ctx, item.GroupVersionKind())
	}
	timer := time.NewTimer(pollInterval)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-w.events:
	case <-timer.C:
	}
	return nil
}

// watch adds an event handler to the informer of gvk; kinds that cannot be
// watched (not served any more) are left to the poll.
func (w *waker) watch(ctx context.Context, gvk schema.GroupVersionKind) {
	if w.watched[gvk] {
		return
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	informer, err := w.cache.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if err != nil {
		return
	}
	poke := func() {
		select {
		case w.events <- struct{}{}:
		default:
		}
	}
	_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { poke() },
		UpdateFunc: func(any, any) { poke() },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if o, ok := obj.(client.Object); ok {
				w.gone(o)
			}
			poke()
		},
	})
	w.watched[gvk] = err == nil
}
