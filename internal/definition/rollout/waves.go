package rollout

import (
	"fmt"
	"math"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// Instance is what a rollout knows of an instance.
type Instance struct {
	// ID is namespace/name.
	ID     string
	Labels map[string]string
	// Running is the revision it runs (status.revision; 0: none yet).
	Running int64
	// Pinned is the revision its owner pinned it to (0: none).
	Pinned int64
	// Ready says it is Ready at its generation; Failed that it failed
	// there (Stalled, an error, a timeout, a failed test or a rollback),
	// with its Ready condition's reason and message.
	Ready, Failed   bool
	Reason, Message string
}

// Wave is the instances that move together.
type Wave struct {
	Name    string
	Members []string
}

// Waves puts instances (pinned ones aside) in the waves of spec, in order:
// each wave takes, among the instances no earlier wave took, those its
// selector matches (all, without one), at most its count of them (a
// number, or a percentage of all instances, rounded up), in the order of
// their IDs; the instances left make a last wave. Waves that take nobody
// are left out.
func Waves(spec v1alpha1.DefinitionRollout, instances []Instance) ([]Wave, error) {
	var free []Instance
	for _, i := range instances {
		if i.Pinned == 0 {
			free = append(free, i)
		}
	}
	slices.SortFunc(free, func(a, b Instance) int { return strings.Compare(a.ID, b.ID) })
	taken := map[string]bool{}
	var out []Wave
	for n, w := range spec.Waves {
		wave, err := take(w, n, free, taken, len(free))
		if err != nil {
			return nil, err
		}
		if len(wave.Members) > 0 {
			out = append(out, wave)
		}
	}
	rest := Wave{Name: "rest"}
	if len(spec.Waves) == 0 {
		rest.Name = "all"
	}
	for _, i := range free {
		if !taken[i.ID] {
			rest.Members = append(rest.Members, i.ID)
		}
	}
	if len(rest.Members) > 0 {
		out = append(out, rest)
	}
	return out, nil
}

func take(w v1alpha1.RolloutWave, n int, free []Instance, taken map[string]bool, total int) (Wave, error) {
	wave := Wave{Name: w.Name}
	if wave.Name == "" {
		wave.Name = fmt.Sprintf("wave-%d", n+1)
	}
	selector := labels.Everything()
	if w.Selector != nil {
		s, err := metav1.LabelSelectorAsSelector(w.Selector)
		if err != nil {
			return wave, fmt.Errorf("spec.rollout.waves[%d].selector: %w", n, err)
		}
		selector = s
	}
	limit := math.MaxInt
	if w.Count != nil {
		c, err := intstr.GetScaledValueFromIntOrPercent(w.Count, total, true)
		if err != nil {
			return wave, fmt.Errorf("spec.rollout.waves[%d].count %q: %w", n, w.Count.String(), err)
		}
		limit = max(c, 1)
	}
	for _, i := range free {
		if len(wave.Members) >= limit {
			break
		}
		if !taken[i.ID] && selector.Matches(labels.Set(i.Labels)) {
			taken[i.ID] = true
			wave.Members = append(wave.Members, i.ID)
		}
	}
	return wave, nil
}
