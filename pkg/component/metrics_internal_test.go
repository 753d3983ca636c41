package component

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestStateGaugeTotals: each observation moves the totals by the
// component's difference, and a total of 0 leaves the gauge.
func TestStateGaugeTotals(t *testing.T) {
	const operator = "gauge-test.example"
	g := newStateGauge(operator)
	withPhases := func(state State, phases ...manifests.Phase) *Status {
		s := &Status{State: state}
		for _, p := range phases {
			s.Inventory = append(s.Inventory, manifests.InventoryItem{Phase: p})
		}
		return s
	}
	g.observe("a", withPhases(StateProcessing, manifests.PhaseCreating, manifests.PhaseReady))
	g.observe("b", withPhases(StateProcessing, manifests.PhaseCreating))
	g.observe("c", withPhases(StateReady, manifests.PhaseReady))
	g.observe("a", withPhases(StateReady, manifests.PhaseReady, manifests.PhaseReady))
	g.observe("b", nil)

	want := map[string]float64{string(StateReady): 2}
	if got := gaugeValues(t, componentsByState, operator); !equalValues(got, want) {
		t.Errorf("wavekit_components = %v, want %v (Processing gone at 0)", got, want)
	}
	want = map[string]float64{string(manifests.PhaseReady): 3}
	if got := gaugeValues(t, dependentsByPhase, operator); !equalValues(got, want) {
		t.Errorf("wavekit_dependents = %v, want %v (Creating gone at 0)", got, want)
	}
}

// gaugeValues reads one operator's values of a gauge by its other label.
func gaugeValues(t *testing.T, vec *prometheus.GaugeVec, operator string) map[string]float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 64)
	vec.Collect(ch)
	close(ch)
	out := map[string]float64{}
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		labels := map[string]string{}
		for _, l := range d.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["operator"] == operator {
			out[labels["state"]+labels["phase"]] = d.GetGauge().GetValue()
		}
	}
	return out
}

func equalValues(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
