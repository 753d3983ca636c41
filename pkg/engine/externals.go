package engine

import (
	"context"
	"fmt"
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

// externalPlan is what a plan needs to know of the external dependents:
// whether the owner has Externals at all (then an apply prunes them last)
// and the waves that hold some.
type externalPlan struct {
	present bool
	waves   []int16
}

// planExternals returns the externalPlan of ext for an apply (deleting
// false) or a deletion.
func planExternals(ext Externals, deleting bool) externalPlan {
	if ext == nil {
		return externalPlan{}
	}
	return externalPlan{present: true, waves: ext.Waves(deleting)}
}

// externalGroup runs a GroupExternal group through the owner's Externals
// and records what it did as the pass's own.
func (r *pass) externalGroup(ctx context.Context, g group) (bool, error) {
	ext := r.s.owner.Externals
	if ext == nil {
		return false, fmt.Errorf("plan group %s in wave %d without Owner.Externals", g.kind, g.wave)
	}
	out, err := ext.Run(ctx, ExternalStep{Action: g.external, Wave: g.wave})
	r.actions = append(r.actions, out.Actions...)
	r.waiting = append(r.waiting, out.Waiting...)
	r.externalDrift = append(r.externalDrift, out.Drifted...)
	r.changed = r.changed || out.Changed
	return out.Done && err == nil, err
}

// withExternals adds a GroupExternal group of action for each of waves to
// the groups of p, which are in ascending wave order: before the wave's
// first group (first true: apply) or after its last (deletion).
func withExternals(p plan, waves []int16, action Action, first bool) plan {
	if len(waves) == 0 {
		return p
	}
	var out plan
	next := 0
	due := func(w int16) bool {
		if first {
			return waves[next] <= w
		}
		return waves[next] < w
	}
	for _, g := range p.groups {
		for next < len(waves) && due(g.wave) {
			out.groups = append(out.groups, group{kind: GroupExternal, wave: waves[next], external: action})
			next++
		}
		out.groups = append(out.groups, g)
	}
	for ; next < len(waves); next++ {
		out.groups = append(out.groups, group{kind: GroupExternal, wave: waves[next], external: action})
	}
	return out
}
