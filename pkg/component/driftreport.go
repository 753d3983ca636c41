package component

import (
	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// reportDrift records what the pass found drifted and left (mode Warn) in
// the Drifted condition, and emits one Warning Event for the drift that is
// new since the applier last reported it: once per change, not per watch
// event. In other modes the condition is removed.
func (p *pass) reportDrift(mode manifests.DriftMode, res engine.Result) {
	conditions.SetDrifted(p.component.GetStatus(), p.component.GetGeneration(), mode, res)
	if mode != manifests.DriftWarn {
		return
	}
	var fresh []engine.Drift
	for _, d := range res.Drifted {
		if d.New {
			fresh = append(fresh, d)
		}
	}
	if p.r.recorder != nil && len(fresh) > 0 {
		note := bound.Problems(conditions.Drifts(fresh), "; ", 0, bound.EventLimit)
		p.r.recorder.Eventf(p.component, nil, "Warning", ReasonDriftDetected, "DetectDrift", "%s", note)
	}
}
