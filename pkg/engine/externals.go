package engine

import (
	"context"
	"fmt"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
)

// Externals is what a pass does with an owner's dependents outside
// Kubernetes (a database, a bucket, a DNS record): pkg/external implements
// it, and Owner.Externals hands it to a pass. The plan gives each wave that
// holds external dependents a GroupExternal group: at the start of an apply
// wave, before the wave's objects, which wait for them; at the end of a
// delete wave, after the wave's objects are gone; and once after the last
// prune group of an apply, for the dependents that left the render.
type Externals interface {
	// Waves returns, in ascending order, the apply waves (deleting false)
	// or the delete waves (deleting true) that hold external dependents.
	Waves(deleting bool) []int16
	// Run does one group's work: ActionApply creates, updates or observes
	// the dependents of the wave; ActionPrune deletes those no longer
	// rendered; ActionDelete deletes (or orphans) those of the delete wave.
	Run(ctx context.Context, step ExternalStep) (ExternalOutcome, error)
}

// ExternalStep is one GroupExternal group of a plan.
type ExternalStep struct {
	Action Action
	Wave   int16
}

// ExternalOutcome is what Externals.Run did and found.
type ExternalOutcome struct {
	// Done is true when every dependent of the step is ready (apply) or
	// gone (prune, delete).
	Done bool
	// Waiting lists the dependents that are not yet.
	Waiting []Waiting
	// Actions lists what the step did, as ObjectActions of the
	// dependents' keys.
	Actions []ObjectAction
	// Drifted lists the dependents left drifted (drift mode Warn).
	Drifted []Drift
	// Changed is true when the step wrote to the external system.
	Changed bool
}

// planExternals returns the externalPlan of ext for an apply (deleting
// false) or a deletion.
func planExternals(ext Externals, deleting bool) plan.ExternalWaves {
	if ext == nil {
		return plan.ExternalWaves{}
	}
	return plan.ExternalWaves{Present: true, Waves: ext.Waves(deleting)}
}

// externalGroup runs a GroupExternal group through the owner's Externals
// and records what it did as the pass's own.
func (r *pass) externalGroup(ctx context.Context, g plan.Group) (bool, error) {
	ext := r.s.owner.Externals
	if ext == nil {
		return false, fmt.Errorf("plan group %s in wave %d without Owner.Externals", g.Kind, g.Wave)
	}
	out, err := ext.Run(ctx, ExternalStep{Action: g.External, Wave: g.Wave})
	r.actions = append(r.actions, out.Actions...)
	r.waiting = append(r.waiting, out.Waiting...)
	r.externalDrift = append(r.externalDrift, out.Drifted...)
	r.changed = r.changed || out.Changed
	return out.Done && err == nil, err
}
