package engine

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// scheduleHooks prepares the delete hooks among objects as every pass
// prepares its objects (prepareFor: annotations, drift ignore rules, health
// checks), adds an inventory item for each new one and saves the inventory
// before any is created.
func (r *pass) scheduleHooks(ctx context.Context, objects []client.Object, save SaveFunc) (map[manifests.ObjectKey]*plan.Desired, error) {
	hookObjects := DeleteHooks(objects, r.s.a.opts.Name)
	if len(hookObjects) == 0 {
		return nil, nil
	}
	_, prepared, err := r.s.prepareFor(forDeleteHooks, objects, false)
	if err != nil {
		return nil, err
	}
	if r.schedule(prepared) && save != nil {
		if err := save(ctx, r.inventory()); err != nil {
			return nil, fmt.Errorf("recording delete hooks before creating them: %w", err)
		}
	}
	return plan.ByKey(prepared), nil
}

// runHook applies a delete hook, waits until it is ready, then deletes it
// (or releases it when its delete policy orphans it). It reports whether the
// hook is done.
func (r *pass) runHook(ctx context.Context, item *manifests.InventoryItem, d *plan.Desired) (bool, error) {
	key := item.Key()
	switch {
	case item.Phase == manifests.PhaseCompleted:
		return true, nil
	case item.Phase == manifests.PhaseDeleting:
		return r.finishHook(ctx, item)
	case d == nil:
		// Recorded earlier but no longer rendered: nothing to run.
		return true, r.settle([]plan.Outcome{{Key: key, Phase: manifests.PhaseCompleted}})
	}
	o := r.s.reconcileStep(ctx, d, item)
	if o.Err != nil {
		o.Err = api.AsStep(ActionRunHook, key, o.Err)
	}
	if err := r.settle([]plan.Outcome{o}); err != nil {
		return false, err
	}
	switch item.Phase {
	case manifests.PhaseCompleted:
		return true, nil // a Job that finished and is gone already
	case manifests.PhaseError:
		return false, api.WordedError(ActionRunHook, api.WordingHookFailed, key, errors.New(item.Status))
	case manifests.PhaseReady:
		_ = r.settle([]plan.Outcome{{Key: key, Phase: manifests.PhaseDeleting}})
		return r.finishHook(ctx, item)
	}
	return false, r.settle([]plan.Outcome{{Key: key, Waiting: "delete hook " + plan.WaitingReason(item), Progress: r.progress[key]}})
}

// finishHook deletes (or releases) a delete hook that is ready; it reports
// whether the hook is gone.
func (r *pass) finishHook(ctx context.Context, item *manifests.InventoryItem) (bool, error) {
	o := plan.Outcome{Key: item.Key()}
	if plan.OnDelete.Orphans(item.DeletePolicy) {
		if err := r.s.release(ctx, item); err != nil {
			return false, err
		}
		o.Phase, o.Action = manifests.PhaseCompleted, ActionOrphan
		return true, r.settle([]plan.Outcome{o})
	}
	rm, err := r.s.deleteObject(ctx, item)
	if err != nil {
		return false, api.WordedError(ActionRunHook, api.WordingHookDelete, item.Key(), err)
	}
	if !rm.gone {
		o.Changed, o.Waiting = true, beingDeleted("delete hook being deleted", rm.heldBy)
		return false, r.settle([]plan.Outcome{o})
	}
	o.Phase, o.Action = manifests.PhaseCompleted, ActionDelete
	return true, r.settle([]plan.Outcome{o})
}

// dropCompletedHooks empties the inventory of hooks once deletion is done.
func (r *pass) dropCompletedHooks() {
	var outs []plan.Outcome
	for _, item := range r.list() {
		if item.DeleteHook != "" && item.Phase == manifests.PhaseCompleted {
			outs = append(outs, plan.Outcome{Key: item.Key(), Drop: true})
		}
	}
	_ = r.settle(outs)
}
