package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/trace"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/foreign"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// execute runs a plan's groups in order and stops at the first group that is
// not done (objects not ready, or not gone yet) or that fails. desired holds
// the rendered objects of apply steps, hooks the rendered delete hooks.
// Each wave runs in a span of its own (waveSpans) when ctx's span records.
func (r *pass) execute(ctx context.Context, p plan.Plan, desired, hooks map[manifests.ObjectKey]*plan.Desired) (Result, error) {
	waves := waveSpans{on: trace.SpanFromContext(ctx).IsRecording(), parent: ctx}
	for _, g := range p.Groups {
		done, err := r.runGroup(waves.enter(r, g), g, desired, hooks)
		if err != nil || !done {
			waves.end(r, err, done)
			return r.result(stopIn(g)), err
		}
	}
	waves.end(r, nil, true)
	return r.result(Stop{}), nil
}

func (r *pass) runGroup(ctx context.Context, g plan.Group, desired, hooks map[manifests.ObjectKey]*plan.Desired) (bool, error) {
	switch g.Kind {
	case GroupApply:
		return true, r.applyGroup(ctx, g, desired)
	case GroupWait:
		return r.waitGroup(g, desired)
	case GroupPurge:
		return r.purgeGroup(ctx, g)
	case GroupPrune, GroupDelete:
		return r.deleteGroup(ctx, g)
	case GroupHook:
		key := g.Steps[0].Key
		return r.runHook(ctx, r.item(key), hooks[key])
	case GroupExternal:
		return r.externalGroup(ctx, g)
	}
	return false, fmt.Errorf("unknown plan group %q", g.Kind)
}

// applyGroup creates or updates the objects of its apply steps, as many at
// once as Options.Concurrency allows, and settles their outcomes in plan
// order.
func (r *pass) applyGroup(ctx context.Context, g plan.Group, desired map[manifests.ObjectKey]*plan.Desired) error {
	outs := make([]plan.Outcome, len(g.Steps))
	_ = r.eachStep(ctx, g, func(ctx context.Context, i int, item *manifests.InventoryItem) error {
		outs[i] = plan.Outcome{Key: g.Steps[i].Key}
		if g.Steps[i].Action == ActionApply {
			outs[i] = r.s.reconcileStep(ctx, desired[g.Steps[i].Key], item)
		}
		return nil
	})
	return r.settle(outs)
}

// waitGroup turns failed objects (a failed Job) into an error and reports
// whether every object of the group is ready, recording the others as
// waiting. A purged object counts as ready once it is on its way out.
func (r *pass) waitGroup(g plan.Group, desired map[manifests.ObjectKey]*plan.Desired) (bool, error) {
	if planted(plantIgnoreWaveReadiness) {
		return true, nil // planted: every wave is ready at once
	}
	var errs []error
	for _, s := range g.Steps {
		if item := r.item(s.Key); item.Phase == manifests.PhaseError {
			errs = append(errs, api.StepError(ActionReady, s.Key, errors.New(item.Status)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return false, err
	}
	var outs []plan.Outcome
	for _, s := range g.Steps {
		item := r.item(s.Key)
		if item.Phase == manifests.PhaseReady || item.Phase == manifests.PhaseCompleted || plan.BeingPurged(desired[s.Key], item) {
			continue
		}
		outs = append(outs, plan.Outcome{Key: s.Key, Waiting: plan.WaitingReason(item), Progress: r.progress[s.Key]})
	}
	return len(outs) == 0, r.settle(outs)
}

// purgeGroup deletes the objects purged at the end of a wave, concurrently;
// it reports whether they are all gone. When a deletion fails, the items
// whose deletion was asked for are still marked Deleting.
func (r *pass) purgeGroup(ctx context.Context, g plan.Group) (bool, error) {
	outs := make([]plan.Outcome, len(g.Steps))
	asked := make([]plan.Outcome, len(g.Steps))
	err := r.eachStep(ctx, g, func(ctx context.Context, i int, item *manifests.InventoryItem) error {
		outs[i], asked[i] = plan.Outcome{Key: item.Key()}, plan.Outcome{Key: item.Key()}
		if item.Phase == manifests.PhaseCompleted {
			return nil // a Job that finished and went before its purge
		}
		rm, err := r.s.deleteObject(ctx, item)
		if err != nil {
			return api.StepError(ActionPurge, item.Key(), err)
		}
		if rm.requested {
			asked[i].Phase = manifests.PhaseDeleting
		}
		if rm.gone {
			r.s.track.purged(item.Key(), item.Digest)
		}
		outs[i] = purged(item, rm)
		return nil
	})
	if err != nil {
		_ = r.settle(asked)
		return false, err
	}
	done := true
	for _, o := range outs {
		done = done && o.Waiting == ""
	}
	return done, r.settle(outs)
}

// purged is the outcome of purging item: gone, or on its way out.
func purged(item *manifests.InventoryItem, rm removal) plan.Outcome {
	o := plan.Outcome{Key: item.Key(), Changed: true}
	if !rm.gone {
		o.Phase, o.Waiting = manifests.PhaseDeleting, beingDeleted("being purged", rm.heldBy)
		return o
	}
	o.Action = goneAction(item, rm.requested)
	o.Phase, o.Status, o.SetStatus = manifests.PhaseCompleted, "", true
	return o
}

// deleteGroup deletes (or orphans) the objects of one delete wave and stage,
// concurrently; it reports whether all of them left the inventory. A CRD
// pruned while foreign instances of its types exist is kept and reported.
func (r *pass) deleteGroup(ctx context.Context, g plan.Group) (bool, error) {
	outs := make([]plan.Outcome, len(g.Steps))
	_ = r.eachStep(ctx, g, func(ctx context.Context, i int, item *manifests.InventoryItem) error {
		outs[i] = r.deleteStep(ctx, g.Steps[i], item)
		return nil
	})
	err := r.settle(outs)
	done := true
	for _, o := range outs {
		done = done && o.Waiting == ""
	}
	return done && err == nil, err
}

// deleteStep orphans or deletes the object of one delete step; its outcome
// drops the item once the object is released or gone.
func (r *pass) deleteStep(ctx context.Context, s plan.Step, item *manifests.InventoryItem) plan.Outcome {
	o := plan.Outcome{Key: s.Key}
	if s.Action == ActionOrphan {
		if o.Err = r.s.release(ctx, item); o.Err == nil {
			o.Drop, o.Action = true, ActionOrphan
		}
		return o
	}
	if s.Action == ActionPrune && item.ManagedTypes != nil {
		blocking, err := r.s.foreignInstances(ctx, item.ManagedTypes)
		if err != nil {
			o.Err = err
			return o
		}
		if len(blocking) > 0 {
			o.Blocked = foreign.Describe(blocking)
			return o
		}
	}
	rm, err := r.s.deleteObject(ctx, item)
	switch {
	case err != nil:
		o.Err = api.StepError(s.Action, item.Key(), err)
	case rm.gone:
		o.Drop, o.Action = true, goneAction(item, rm.requested)
	default:
		o.Changed, o.Phase = true, manifests.PhaseDeleting
		o.Waiting = beingDeleted("being deleted", rm.heldBy)
	}
	return o
}

// eachStep calls fn for the inventory item of every step of g, as many at
// once as Options.Concurrency allows.
func (r *pass) eachStep(ctx context.Context, g plan.Group, fn func(context.Context, int, *manifests.InventoryItem) error) error {
	indexes := make([]int, len(g.Steps))
	for i := range indexes {
		indexes[i] = i
	}
	return forEach(ctx, r.s.a.opts.Concurrency, indexes, func(ctx context.Context, i int) error {
		return fn(ctx, i, r.item(g.Steps[i].Key))
	})
}

// stopIn is where a pass that stops in g stopped.
func stopIn(g plan.Group) Stop {
	s := Stop{Step: g.Kind, Wave: g.Wave}
	if api.StagedGroup(g.Kind) {
		s.Stage = g.Stage.String()
	}
	if g.Kind == GroupExternal {
		s.Stage = string(g.External)
	}
	return s
}

// forEach calls fn for every object with at most limit calls at once and
// returns the errors of all calls joined. Its workers take the objects in
// turn: a goroutine an object grew a new stack for each one (a twentieth of
// a no-op pass of 500 objects).
func forEach[T any](ctx context.Context, limit int, objs []T, fn func(context.Context, T) error) error {
	if len(objs) == 1 || limit <= 1 {
		var errs []error
		for _, obj := range objs {
			errs = append(errs, fn(ctx, obj))
		}
		return errors.Join(errs...)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next atomic.Int64
	)
	for range min(limit, len(objs)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(objs)); i = next.Add(1) - 1 {
				if err := fn(ctx, objs[i]); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// The planted bugs of this package (plant_on.go): the soak's
// internal/plant names them too.
const (
	// plantRunOnceByName judges a run-once object (a hook Job) that ran at
	// this render by its name: done once any Job of that name completed.
	plantRunOnceByName = "runonce-by-name"
	// plantIgnoreWaveReadiness starts the next wave without waiting for
	// the objects of the current one to be ready.
	plantIgnoreWaveReadiness = "ignore-wave-readiness"
)
