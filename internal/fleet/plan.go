package fleet

import (
	"slices"
	"strconv"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// member is one selected cluster with its wave, what its Component should
// be, and the Component if there is one.
type member struct {
	Cluster   cluster
	Wave      int // 1-based
	Desired   desired
	Component *v1alpha1.Component // nil: none yet
	State     state
	Message   string
}

// write is a Component to create (Component nil) or update.
type write struct {
	Member *member
}

// plan is what one reconcile does and reports.
type plan struct {
	Members []*member
	// Writes create or update the Components of the waves reached.
	Writes []write
	// Leaving are the set's Components whose cluster is no longer
	// selected: deleted or released by the removal policy.
	Leaving []*v1alpha1.Component
	// Wave is the wave the rollout is at (1-based; Waves when done).
	Wave, Waves int
	// FailedAt is the first failed member of the waves reached, if any.
	FailedAt *member
	// Unavailable is the budget of unreachable clusters.
	Unavailable int
	// Inputs is the number of inputs of a set with spec.inputs.
	Inputs int
}

// makePlan decides, from the selected clusters and the set's Components
// (by cluster name), which Components to write and which are leaving. The
// template reaches wave k+1 only when every member of waves 1..k is Ready
// at it, or unreachable within the maxUnavailable budget; a failed member
// stops the rollout there. It reads and writes nothing.
func makePlan(set *v1alpha1.ComponentSet, clusters []cluster, owned map[string]*v1alpha1.Component, k keys) (*plan, error) {
	waves, err := assignWaves(set.Spec.Rollout, clusters)
	if err != nil {
		return nil, err
	}
	budget, err := maxUnavailable(set.Spec.Rollout, len(clusters))
	if err != nil {
		return nil, err
	}
	p := &plan{Waves: len(waves), Wave: len(waves), Unavailable: budget}
	selected := map[string]bool{}
	reached, unreachable := true, 0
	for i, wave := range waves {
		done := true
		for _, c := range wave {
			selected[c.Name] = true
			m, err := p.place(set, c, i+1, owned[c.Name], reached, k)
			if err != nil {
				return nil, err
			}
			switch m.State {
			case stateUnreachable:
				unreachable++
				done = done && unreachable <= budget
			case stateFailed:
				done = false
				if p.FailedAt == nil && reached {
					p.FailedAt = m
				}
			case stateReady:
			default:
				done = false
			}
		}
		if reached && !done {
			reached, p.Wave = false, i+1
		}
	}
	for _, name := range sortedKeys(owned) {
		if !selected[name] {
			p.Leaving = append(p.Leaving, owned[name])
		}
	}
	return p, nil
}

// place adds the member of cluster c in wave, and a write when its wave is
// reached and its Component lacks the current template or wave.
func (p *plan) place(set *v1alpha1.ComponentSet, c cluster, wave int, existing *v1alpha1.Component, reached bool, k keys) (*member, error) {
	d, err := desire(set, c)
	if err != nil {
		return nil, err
	}
	m := &member{Cluster: c, Wave: wave, Desired: d, Component: existing}
	p.Members = append(p.Members, m)
	switch {
	case existing == nil && !reached:
		m.State, m.Message = stateWaiting, "not created yet"
	case existing == nil:
		m.State, m.Message = stateUpdating, "being created"
		p.Writes = append(p.Writes, write{Member: m})
	default:
		m.State, m.Message = classify(existing, d.Hash, k)
		current := existing.Annotations[k.specHash] == d.Hash
		if !current && !reached && m.State != stateUnreachable {
			m.State, m.Message = stateWaiting, "keeps its template until an earlier wave is Ready"
		}
		if (!current && reached) || (current && existing.Annotations[k.wave] != strconv.Itoa(wave)) {
			p.Writes = append(p.Writes, write{Member: m})
		}
	}
	if set.Spec.Paused {
		m.pause(reached, k)
	}
	return m, nil
}

// pause says, for the member of a paused set, what the set would do there
// instead of what it does when it is not paused: create the cluster's
// Component or write the new template to it, now or once the earlier
// waves are Ready. An unreachable cluster still says so.
func (m *member) pause(reached bool, k keys) {
	if m.State == stateUnreachable {
		return
	}
	switch {
	case m.Component == nil:
		m.Message = "would create its Component"
	case m.Component.Annotations[k.specHash] != m.Desired.Hash:
		m.Message = "would write the new template"
	default:
		return
	}
	m.State = statePaused
	if !reached {
		m.Message += " once the earlier waves are Ready"
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
