package report

import (
	"reflect"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
)

// droppedPaths and withoutPaths are pure: these tables check what counts as
// a field the CRD dropped, and that leaving it out compares the rest.
func TestDroppedPaths(t *testing.T) {
	sent := map[string]any{
		"state":   "Ready",
		"attempt": map[string]any{"generation": 2.0, "tests": map[string]any{"run": "r1"}},
		"history": []any{map[string]any{"generation": 1.0}},
		"source":  map[string]any{"url": "oci://x"},
	}
	stored := map[string]any{
		"state":   "Ready",
		"attempt": map[string]any{"generation": 2.0},
		"source":  map[string]any{"url": "oci://x"},
	}
	got := droppedPaths(sent, stored, "")
	if want := []string{"attempt.tests", "history"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("droppedPaths = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(withoutPaths(sent, got), stored) {
		t.Errorf("without %v: %v, want %v", got, sent, stored)
	}
	var p Pruned
	if fresh := p.learn(got); !reflect.DeepEqual(fresh, got) {
		t.Errorf("learn = %v, want %v", fresh, got)
	}
	if fresh := p.learn([]string{"history"}); len(fresh) != 0 {
		t.Errorf("learnt again: %v", fresh)
	}
	changed := &api.Status{State: api.StateReady, Attempt: &api.Attempt{Generation: 3}}
	stale := &api.Status{State: api.StateReady, Attempt: &api.Attempt{Generation: 2}}
	if p.sameButPruned(changed, stale) {
		t.Error("a change outside the dropped fields counts as none")
	}
}
