package engine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// reconcileObject writes one object if decide says so and reports, as its
// outcome, what it wrote and the phase and readiness the object reached.
// It reads item and does not change it.
func (s *ownerScope) reconcileObject(ctx context.Context, d *plan.Desired, item *manifests.InventoryItem) plan.Outcome {
	o := plan.Outcome{Key: d.Key}
	if _, settled := plan.SettledByRecord(d, item); settled {
		return o
	}
	live, err := s.a.live.GetShared(ctx, d.GVK, d.Key) // read only, copied before a write
	if err != nil {
		o.Err = api.StepError(ActionApply, d.Key, fmt.Errorf("reading it: %w", err))
		return o
	}
	dec := s.decideFor(ctx, d, item, live)
	switch {
	case dec.Kind == plan.WriteRefuse:
		return failed(o, dec.Err)
	case dec.Reason == plan.ReasonPurgedAtRender:
		o.Written, o.Digest, o.AppliedAt = true, d.Digest, item.LastAppliedAt
		o.Phase, o.Status, o.SetStatus = manifests.PhaseCompleted, "", true
		return o
	case dec.RecordCreate:
		// Record the create now; decide did not create it again.
		o.Written, o.Digest, o.AppliedAt = true, d.Digest, item.LastAppliedAt
	}
	phase := item.Phase
	if dec.Writes() {
		out, err := s.correct(ctx, d, ownCopy(live), dec)
		if err != nil {
			o.Err = api.StepError(ActionApply, d.Key, err)
			return o
		}
		// A write deletes instead of creating (recreate, replace-on-
		// immutable) when the object exists; when the cache read it as
		// absent, it does not hold it, and its deletion sends no event.
		deleted := out.live == nil || out.replaced != nil
		created := live == nil && !deleted
		o = s.wrote(o, d, created)
		o.Corrected = dec.Correction
		o.Unwatched = live == nil && deleted
		phase, live = writePhase(phase, created), out.live
		if out.replaced != nil {
			return replacing(o, phase, out.replaced)
		}
	}
	return s.judged(ctx, o, d, phase, live)
}

// ownCopy is a copy of a live object read with getShared, for a write
// that may change it; nil stays nil.
func ownCopy(live *unstructured.Unstructured) *unstructured.Unstructured {
	if live == nil {
		return nil
	}
	return live.DeepCopy()
}

// wrote is o for an object the pass just created or updated.
func (s *ownerScope) wrote(o plan.Outcome, d *plan.Desired, created bool) plan.Outcome {
	o.Action, o.Changed = ActionUpdate, true
	if created {
		o.Action = ActionCreate
	}
	o.Written, o.Digest = true, d.Digest
	if d.Policies.ReapplyInterval > 0 {
		o.AppliedAt = s.a.opts.Now().Unix()
	}
	return o
}

// judged is o with the phase and status live shows, by the owner's health
// checks or kstatus.
func (s *ownerScope) judged(ctx context.Context, o plan.Outcome, d *plan.Desired, phase manifests.Phase, live *unstructured.Unstructured) plan.Outcome {
	hint := d.Policies.StatusHint
	if live != nil && !hint.HasObservedGeneration {
		hint.HasObservedGeneration = s.a.reporting.Reported(ctx, s.a.mapper, s.a.target.Client, d.GVK)
	}
	o.Phase, o.Status, o.Progress = readiness.Phase(phase, live, s.health, hint)
	o.SetStatus = true
	return o
}

// replacing is o for an object that replace-on-immutable deleted to create
// it again: the action and the status name the immutable fields.
func replacing(o plan.Outcome, phase manifests.Phase, immutable *ImmutableFieldError) plan.Outcome {
	o.Action, o.Detail = ActionReplace, api.ImmutableReason(immutable)
	o.Phase, o.Status, o.SetStatus = phase, "re-creating, since "+o.Detail+"; waiting for the old object to be deleted", true
	return o
}

// failed is o turned into a failure: the object is in error, and says why.
func failed(o plan.Outcome, err error) plan.Outcome {
	o.Phase, o.Status, o.SetStatus, o.Err = manifests.PhaseError, err.Error(), true, err
	return o
}

// writePhase is the phase of an object just written: Creating until it
// first was ready, and whenever it is created anew (a purged hook in its
// next upgrade), else Updating.
func writePhase(previous manifests.Phase, created bool) manifests.Phase {
	if created || previous == manifests.PhaseScheduled || previous == manifests.PhaseCreating || previous == "" {
		return manifests.PhaseCreating
	}
	return manifests.PhaseUpdating
}
