package component

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// reportDrift records what the pass found drifted and left (mode Warn) in
// the Drifted condition, and emits one Warning Event for the drift that is
// new since the applier last reported it: once per change, not per watch
// event. In other modes the condition is removed.
func (p *pass[T]) reportDrift(mode manifests.DriftMode, res engine.Result) {
	status := p.component.GetStatus()
	if mode != manifests.DriftWarn {
		meta.RemoveStatusCondition(&status.Conditions, ConditionDrifted)
		return
	}
	generation := p.component.GetGeneration()
	switch {
	case len(res.Drifted) > 0:
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: ConditionDrifted, Status: metav1.ConditionTrue, Reason: ReasonDriftDetected, ObservedGeneration: generation,
			Message: bound.Problems(describeDrifts(res.Drifted), "; ", 0, driftMessageLimit),
		})
	case res.Done: // every object was compared
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: ConditionDrifted, Status: metav1.ConditionFalse, Reason: ReasonNoDrift, ObservedGeneration: generation,
			Message: "every object holds what was applied",
		})
	}
	var fresh []engine.Drift
	for _, d := range res.Drifted {
		if d.New {
			fresh = append(fresh, d)
		}
	}
	if p.r.recorder != nil && len(fresh) > 0 {
		note := bound.Problems(describeDrifts(fresh), "; ", 0, bound.EventLimit)
		p.r.recorder.Eventf(p.component, nil, "Warning", ReasonDriftDetected, "DetectDrift", "%s", note)
	}
}

// describeDrifts names each drifted object with its paths:
// "ConfigMap ns/settings: /data/value".
func describeDrifts(drifts []engine.Drift) []string {
	out := make([]string, len(drifts))
	for i, d := range drifts {
		out[i] = fmt.Sprintf("%s: %s", d.Object, strings.Join(d.Paths, ", "))
	}
	return out
}
