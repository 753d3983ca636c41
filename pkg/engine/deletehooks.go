package engine

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// scheduleHooks validates the delete hooks among objects, adds an inventory
// item for each new one and saves the inventory before any is created.
func (r *applyRun) scheduleHooks(ctx context.Context, objects []client.Object, save SaveFunc) (map[manifests.ObjectKey]*desired, error) {
	hookObjects := DeleteHooks(objects, r.a.opts.Name)
	if len(hookObjects) == 0 {
		return nil, nil
	}
	p := &preparer{
		prefix: r.a.opts.Name, namespace: r.owner.Namespace, generation: r.owner.Generation,
		defaults: r.a.defaultsFor(r.owner), scheme: r.a.scheme, mapper: r.a.mapper,
	}
	prepared, err := p.prepare(hookObjects)
	if err != nil {
		return nil, fmt.Errorf("invalid delete hooks: %w", err)
	}
	hooks := make(map[manifests.ObjectKey]*desired, len(prepared))
	added := false
	for _, d := range prepared {
		hooks[d.key] = d
		if _, known := r.items[d.key]; known {
			continue
		}
		item := &manifests.InventoryItem{Phase: manifests.PhaseScheduled, DeleteHook: d.policies.DeleteHook}
		describe(item, d)
		r.items[d.key] = item
		r.order = append(r.order, d.key)
		added = true
	}
	if added && save != nil {
		if err := save(ctx, r.inventory()); err != nil {
			return nil, fmt.Errorf("recording delete hooks before creating them: %w", err)
		}
	}
	return hooks, nil
}

// runHook applies a delete hook, waits until it is ready, then deletes it
// (or releases it when its delete policy orphans it). It reports whether the
// hook is done.
func (r *applyRun) runHook(ctx context.Context, item *manifests.InventoryItem, d *desired) (bool, error) {
	switch {
	case item.Phase == manifests.PhaseCompleted:
		return true, nil
	case item.Phase == manifests.PhaseDeleting:
		return r.finishHook(ctx, item)
	case d == nil:
		// Recorded earlier but no longer rendered: nothing to run.
		item.Phase = manifests.PhaseCompleted
		return true, nil
	}
	verb, err := r.a.reconcileObject(ctx, r.owner, d, item)
	if err != nil {
		return false, fmt.Errorf("running delete hook %s: %w", item, err)
	}
	if verb != "" {
		r.markChanged()
		r.record(verb, item.Key())
	}
	switch item.Phase {
	case manifests.PhaseError:
		return false, fmt.Errorf("delete hook %s failed: %s", item, item.Status)
	case manifests.PhaseReady:
		item.Phase = manifests.PhaseDeleting
		return r.finishHook(ctx, item)
	}
	r.wait(item.Key(), "delete hook "+waitingReason(item))
	return false, nil
}

func (r *applyRun) finishHook(ctx context.Context, item *manifests.InventoryItem) (bool, error) {
	if onDelete.orphans(item.DeletePolicy) {
		if err := r.a.release(ctx, r.owner, item); err != nil {
			return false, err
		}
		item.Phase = manifests.PhaseCompleted
		r.record(ActionOrphaned, item.Key())
		return true, nil
	}
	gone, heldBy, err := r.a.deleteObject(ctx, r.owner, item)
	if err != nil {
		return false, fmt.Errorf("deleting delete hook %s: %w", item, err)
	}
	if !gone {
		r.markChanged()
		r.wait(item.Key(), beingDeleted("delete hook being deleted", heldBy))
		return false, nil
	}
	item.Phase = manifests.PhaseCompleted
	r.record(ActionDeleted, item.Key())
	return true, nil
}

// dropCompletedHooks empties the inventory of hooks once deletion is done.
func (r *applyRun) dropCompletedHooks() {
	for _, item := range r.list() {
		if item.DeleteHook != "" && item.Phase == manifests.PhaseCompleted {
			r.drop(item)
		}
	}
}
