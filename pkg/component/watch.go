package component

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// registerOwner maps a component's owner label value back to the component.
func (r *Reconciler[T]) registerOwner(ownerID string, id types.NamespacedName) {
	r.owners.set(ownerID, id)
}

// watchDependents makes sure every kind in the inventory has an event handler
// on the target's label-filtered informers. Informers are shared with the
// applier's reads, so watching costs no extra requests. It runs before each
// pass for the kinds already known (a handler added later would miss
// deletions that happen meanwhile: they are not replayed) and after it for
// new ones. It reports whether it added a handler: events of that kind before
// then are not replayed, so a pass that is not done must look again itself.
func (r *Reconciler[T]) watchDependents(ctx context.Context, tg *targets.Target, inventory []manifests.InventoryItem) (bool, error) {
	added := false
	for _, item := range inventory {
		if tg.IsWatched(item.GroupVersionKind().String()) {
			continue
		}
		watching, err := r.watchKind(ctx, tg, item)
		if err != nil {
			return added, err
		}
		added = added || watching
	}
	return added, nil
}

// watchKind adds the dependent handler to the informer of item's kind, once
// a target: the check and the registration hold the target's Registering,
// since workers reconciling components of one target at the same moment
// would otherwise each add a handler, and every event of the kind would
// then start a reconcile per handler. It reports whether it added one.
func (r *Reconciler[T]) watchKind(ctx context.Context, tg *targets.Target, item manifests.InventoryItem) (bool, error) {
	tg.Registering.Lock()
	defer tg.Registering.Unlock()
	gvk := item.GroupVersionKind()
	if tg.IsWatched(gvk.String()) {
		return false, nil
	}
	err := tg.Applier.CheckListable(ctx, gvk, item.Namespace)
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return false, nil // no longer served (its CRD is gone): nothing to watch
	}
	if err != nil {
		return false, fmt.Errorf("watching %s: %w", gvk, err)
	}
	remove, err := tg.Handlers.Add(ctx, tg.CachedTarget, gvk, r.dependentHandler(tg))
	if meta.IsNoMatchError(err) {
		return false, nil // no longer served (its CRD is gone): nothing to watch
	}
	if err != nil {
		return false, err
	}
	tg.MarkWatched(gvk.String(), remove)
	return true, nil
}

// dependentHandler enqueues the owning component of a changed dependent,
// except for changes the applier made itself. An object another component
// took over (its owner label changed) also enqueues the component that lost
// it, then and again when the object is deleted, so that the loser's status
// tells the truth instead of the last thing it knew.
func (r *Reconciler[T]) dependentHandler(tg *targets.Target) toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, listed bool) {
			// An object listed as the informer starts, or replayed to a
			// handler added late, is not a change: after a restart one
			// comes for every object of every component, and a change
			// made then should not wait behind them all.
			events := r.events
			if listed {
				events = r.resyncs
			}
			r.dependentChanged(events, tg, obj, true)
		},
		UpdateFunc: func(old, obj any) {
			r.ownerChanged(tg, old, obj)
			r.dependentChanged(r.events, tg, obj, true)
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if o, ok := obj.(client.Object); ok {
				tg.Applier.ObjectGone(o)
				r.enqueueOwner(tg.ForgetLoser(o.GetUID()))
			}
			r.dependentChanged(r.events, tg, obj, false)
		},
	}
}

// ownerChanged enqueues the previous owner of an object whose owner label
// changed, and remembers it until the object is deleted. It also enqueues the
// owner the object was taken from before, which may take it back once it is
// released (its label removed).
func (r *Reconciler[T]) ownerChanged(tg *targets.Target, old, obj any) {
	before, ok1 := old.(client.Object)
	after, ok2 := obj.(client.Object)
	if !ok1 || !ok2 {
		return
	}
	label := manifests.Key(r.name, manifests.LabelOwnerID)
	previous := before.GetLabels()[label]
	if previous == "" || previous == after.GetLabels()[label] {
		return
	}
	r.enqueueOwner(tg.ForgetLoser(after.GetUID()))
	tg.RememberLoser(after.GetUID(), previous)
	r.enqueueOwner(previous)
}

// dependentChanged enqueues on events the owner of obj, unless obj is a
// write of the applier's own (skipOwnWrites).
func (r *Reconciler[T]) dependentChanged(events chan<- event.GenericEvent, tg *targets.Target, obj any, skipOwnWrites bool) {
	o, ok := obj.(client.Object)
	if !ok {
		return
	}
	ownerID := o.GetLabels()[manifests.Key(r.name, manifests.LabelOwnerID)]
	if skipOwnWrites && tg.Applier.ClaimEvent(o, func() { r.enqueueOwnerOn(events, ownerID) }) {
		return
	}
	r.enqueueOwnerOn(events, ownerID)
}

// enqueueOwner enqueues the component with owner label value ownerID, if it
// is one of this reconciler's.
func (r *Reconciler[T]) enqueueOwner(ownerID string) {
	r.enqueueOwnerOn(r.events, ownerID)
}

// enqueueOwnerOn sends the component with owner label value ownerID to
// events (r.events, or r.resyncs: behind every change).
func (r *Reconciler[T]) enqueueOwnerOn(events chan<- event.GenericEvent, ownerID string) {
	if ownerID == "" {
		return
	}
	id, known := r.owners.get(ownerID)
	if !known {
		return
	}
	component := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: id.Namespace, Name: id.Name}}
	select {
	case events <- event.GenericEvent{Object: component}:
	case <-r.forwarded: // stopped: no one would take it
	}
}

// ownerIndex maps the owner label values of the reconciler's components
// back to the components, for the events of their objects.
type ownerIndex struct {
	mu  sync.Mutex
	ids map[string]types.NamespacedName
}

func newOwnerIndex() *ownerIndex {
	return &ownerIndex{ids: map[string]types.NamespacedName{}}
}

func (o *ownerIndex) set(ownerID string, id types.NamespacedName) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ids[ownerID] = id
}

func (o *ownerIndex) get(ownerID string) (types.NamespacedName, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	id, ok := o.ids[ownerID]
	return id, ok
}
