package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// execute runs a plan's groups in order and stops at the first group that is
// not done (objects not ready, or not gone yet) or that fails. desired holds
// the rendered objects of apply steps, hooks the rendered delete hooks.
func (r *applyRun) execute(ctx context.Context, p plan, desired, hooks map[manifests.ObjectKey]*desired) (Result, error) {
	for _, g := range p.groups {
		done, err := r.runGroup(ctx, g, desired, hooks)
		if err != nil || !done {
			return r.result(false, g.reportedWave()), err
		}
	}
	return r.result(true, 0), nil
}

// reportedWave is the wave a pass that stops in g reports: the apply wave,
// or 0 while pruning or deleting.
func (g group) reportedWave() int16 {
	switch g.kind {
	case groupApply, groupWait, groupPurge:
		return g.wave
	}
	return 0
}

func (r *applyRun) runGroup(ctx context.Context, g group, desired, hooks map[manifests.ObjectKey]*desired) (bool, error) {
	switch g.kind {
	case groupApply:
		return true, r.applyGroup(ctx, g, desired)
	case groupWait:
		return r.waitGroup(g, desired)
	case groupPurge:
		return r.purgeGroup(ctx, g)
	case groupDelete:
		return r.deleteGroup(ctx, g)
	case groupHook:
		key := g.steps[0].key
		return r.runHook(ctx, r.item(key), hooks[key])
	}
	return false, fmt.Errorf("unknown plan group %q", g.kind)
}

// applyGroup creates or updates the objects of its apply steps, as many at
// once as Options.Concurrency allows.
func (r *applyRun) applyGroup(ctx context.Context, g group, desired map[manifests.ObjectKey]*desired) error {
	return forEach(ctx, r.a.opts.Concurrency, g.steps, func(ctx context.Context, s step) error {
		if s.action != stepApply {
			return nil
		}
		verb, err := r.a.reconcileObject(ctx, r.owner, desired[s.key], r.item(s.key))
		if verb != "" {
			r.markChanged()
			r.record(verb, s.key)
		}
		return err
	})
}

// waitGroup turns failed objects (a failed Job) into an error and reports
// whether every object of the group is ready, recording the others as
// waiting. A purged object counts as ready once it is on its way out.
func (r *applyRun) waitGroup(g group, desired map[manifests.ObjectKey]*desired) (bool, error) {
	var errs []error
	for _, s := range g.steps {
		if item := r.item(s.key); item.Phase == manifests.PhaseError {
			errs = append(errs, fmt.Errorf("%s failed: %s", s.key, item.Status))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return false, err
	}
	ready := true
	for _, s := range g.steps {
		item := r.item(s.key)
		if item.Phase == manifests.PhaseReady || item.Phase == manifests.PhaseCompleted || beingPurged(desired[s.key], item) {
			continue
		}
		ready = false
		r.wait(s.key, waitingReason(item))
	}
	return ready, nil
}

func waitingReason(item *manifests.InventoryItem) string {
	if item.Status == "" {
		return string(item.Phase)
	}
	return string(item.Phase) + ", " + item.Status
}

// purgeGroup deletes the objects purged at the end of a wave, concurrently;
// it reports whether they are all gone.
func (r *applyRun) purgeGroup(ctx context.Context, g group) (bool, error) {
	gone := make([]bool, len(g.steps))
	heldBy := make([]string, len(g.steps))
	err := r.eachStep(ctx, g, func(ctx context.Context, i int, item *manifests.InventoryItem) error {
		var err error
		if gone[i], heldBy[i], err = r.a.deleteObject(ctx, r.owner, item); err != nil {
			return fmt.Errorf("purging %s: %w", item, err)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	done := true
	for i, s := range g.steps {
		item := r.item(s.key)
		r.markChanged()
		if !gone[i] {
			done = false
			item.Phase = manifests.PhaseDeleting
			r.wait(s.key, beingDeleted("being purged", heldBy[i]))
			continue
		}
		r.record(goneVerb(item), s.key)
		item.Phase, item.Status = manifests.PhaseCompleted, ""
	}
	return done, nil
}

// deleteGroup deletes (or orphans) the objects of one delete wave and stage,
// concurrently; it reports whether all of them left the inventory. A CRD
// pruned while foreign instances of its types exist is kept and reported.
func (r *applyRun) deleteGroup(ctx context.Context, g group) (bool, error) {
	outcomes := make([]deletion, len(g.steps))
	err := r.eachStep(ctx, g, func(ctx context.Context, i int, item *manifests.InventoryItem) error {
		var err error
		outcomes[i], err = r.deleteStep(ctx, g.steps[i], item)
		return err
	})
	done := true
	for i, s := range g.steps {
		item := r.item(s.key)
		switch outcomes[i].result {
		case deletionReleased:
			r.drop(item)
			r.record(ActionOrphaned, s.key)
		case deletionGone:
			r.drop(item)
			r.record(goneVerb(item), s.key)
		case deletionKept:
			r.blocked = append(r.blocked, Blocker{Object: s.key, Reason: outcomes[i].why})
		case deletionPending:
			r.markChanged()
			item.Phase = manifests.PhaseDeleting
			r.wait(s.key, beingDeleted("being deleted", outcomes[i].why))
			done = false
		}
	}
	return done && err == nil, err
}

// deletion is what became of one delete step.
type deletion struct {
	result deletionResult
	why    string
}

type deletionResult int

const (
	deletionFailed   deletionResult = iota
	deletionReleased                // orphaned: the owner label is gone
	deletionGone                    // the object is gone, or not this owner's
	deletionKept                    // kept for foreign instances of its types
	deletionPending                 // being deleted; why is what holds it, if known
)

func (r *applyRun) deleteStep(ctx context.Context, s step, item *manifests.InventoryItem) (deletion, error) {
	if s.action == stepOrphan {
		if err := r.a.release(ctx, r.owner, item); err != nil {
			return deletion{}, err
		}
		return deletion{result: deletionReleased}, nil
	}
	if s.action == stepPrune && item.ManagedTypes != nil {
		blocking, err := r.a.foreignInstances(ctx, item.ManagedTypes, r.owner)
		if err != nil {
			return deletion{}, err
		}
		if len(blocking) > 0 {
			return deletion{result: deletionKept, why: describeBlocking(blocking)}, nil
		}
	}
	gone, heldBy, err := r.a.deleteObject(ctx, r.owner, item)
	if err != nil {
		return deletion{}, fmt.Errorf("deleting %s: %w", item, err)
	}
	if gone {
		return deletion{result: deletionGone}, nil
	}
	return deletion{result: deletionPending, why: heldBy}, nil
}

// eachStep calls fn for the inventory item of every step of g, as many at
// once as Options.Concurrency allows.
func (r *applyRun) eachStep(ctx context.Context, g group, fn func(context.Context, int, *manifests.InventoryItem) error) error {
	indexes := make([]int, len(g.steps))
	for i := range indexes {
		indexes[i] = i
	}
	return forEach(ctx, r.a.opts.Concurrency, indexes, func(ctx context.Context, i int) error {
		return fn(ctx, i, r.item(g.steps[i].key))
	})
}
