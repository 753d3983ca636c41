package engine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// reconcileObject writes one object if decide says so and reports, as its
// outcome, what it wrote and the phase and readiness the object reached.
// It reads item and does not change it.
func (s *ownerScope) reconcileObject(ctx context.Context, d *desired, item *manifests.InventoryItem) outcome {
	o := outcome{key: d.key}
	if _, settled := settledByRecord(d, item); settled {
		return o
	}
	live, err := s.a.live.GetShared(ctx, d.gvk, d.key) // read only, copied before a write
	if err != nil {
		o.err = api.StepError(ActionApply, d.key, fmt.Errorf("reading it: %w", err))
		return o
	}
	dec := s.decideFor(ctx, d, item, live)
	switch {
	case dec.kind == writeRefuse:
		return failed(o, dec.err)
	case dec.reason == reasonPurgedAtRender:
		o.written, o.digest, o.appliedAt = true, d.digest, item.LastAppliedAt
		o.phase, o.status, o.setStatus = manifests.PhaseCompleted, "", true
		return o
	case dec.recordCreate:
		// Record the create now; decide did not create it again.
		o.written, o.digest, o.appliedAt = true, d.digest, item.LastAppliedAt
	}
	phase := item.Phase
	if dec.writes() {
		out, err := s.correct(ctx, d, ownCopy(live), dec)
		if err != nil {
			o.err = api.StepError(ActionApply, d.key, err)
			return o
		}
		// A write deletes instead of creating (recreate, replace-on-
		// immutable) when the object exists; when the cache read it as
		// absent, it does not hold it, and its deletion sends no event.
		deleted := out.live == nil || out.replaced != nil
		created := live == nil && !deleted
		o = s.wrote(o, d, created)
		o.corrected = dec.correction
		o.unwatched = live == nil && deleted
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
func (s *ownerScope) wrote(o outcome, d *desired, created bool) outcome {
	o.action, o.changed = ActionUpdate, true
	if created {
		o.action = ActionCreate
	}
	o.written, o.digest = true, d.digest
	if d.policies.ReapplyInterval > 0 {
		o.appliedAt = s.a.opts.Now().Unix()
	}
	return o
}

// judged is o with the phase and status live shows, by the owner's health
// checks or kstatus.
func (s *ownerScope) judged(ctx context.Context, o outcome, d *desired, phase manifests.Phase, live *unstructured.Unstructured) outcome {
	hint := d.policies.StatusHint
	if live != nil && !hint.HasObservedGeneration {
		hint.HasObservedGeneration = s.a.reporting.Reported(ctx, s.a.mapper, s.a.target.Client, d.gvk)
	}
	o.phase, o.status, o.progress = readiness.Phase(phase, live, s.health, hint)
	o.setStatus = true
	return o
}

// replacing is o for an object that replace-on-immutable deleted to create
// it again: the action and the status name the immutable fields.
func replacing(o outcome, phase manifests.Phase, immutable *ImmutableFieldError) outcome {
	o.action, o.detail = ActionReplace, api.ImmutableReason(immutable)
	o.phase, o.status, o.setStatus = phase, "re-creating, since "+o.detail+"; waiting for the old object to be deleted", true
	return o
}

// failed is o turned into a failure: the object is in error, and says why.
func failed(o outcome, err error) outcome {
	o.phase, o.status, o.setStatus, o.err = manifests.PhaseError, err.Error(), true, err
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
