package engine

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// job is a Job in the form a watch event carries it, with conditions given
// as type/status pairs.
func job(name string, conditions ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "batch/v1", "kind": "Job"}}
	u.SetNamespace("ns")
	u.SetName(name)
	var list []any
	for i := 0; i+1 < len(conditions); i += 2 {
		list = append(list, map[string]any{"type": conditions[i], "status": conditions[i+1],
			"reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"})
	}
	if list != nil {
		_ = unstructured.SetNestedSlice(u.Object, list, "status", "conditions")
	}
	return u
}

// TestEndOf: a Job that is gone ended as its last seen state says; one
// never seen counts as done and says so.
func TestEndOf(t *testing.T) {
	cases := []struct {
		name   string
		last   *unstructured.Unstructured
		phase  manifests.Phase
		status string
	}{
		{"complete", job("a", "SuccessCriteriaMet", "True", "Complete", "True"), manifests.PhaseCompleted, ""},
		{"success criteria met, pods ending", job("a", "SuccessCriteriaMet", "True"), manifests.PhaseCompleted, ""},
		{"failed", job("a", "FailureTarget", "True", "Failed", "True"), manifests.PhaseError,
			"Failed: BackoffLimitExceeded: Job has reached the specified backoff limit"},
		{"running", job("a"), manifests.PhaseError, statusDeletedUnfinished},
		{"suspended", job("a", "Suspended", "True", "Complete", "False"), manifests.PhaseError, statusDeletedUnfinished},
		{"never seen", nil, manifests.PhaseCompleted, statusOutcomeUnseen},
	}
	for _, c := range cases {
		phase, status := endOf(c.last)
		if phase != c.phase || status != c.status {
			t.Errorf("%s: %s %q, want %s %q", c.name, phase, status, c.phase, c.status)
		}
	}
}

// TestRunEnds: the transform keeps the last state of Jobs only, without
// changing what it passes on, and forgets a Job not seen for runEndMemory.
func TestRunEnds(t *testing.T) {
	now := time.Unix(1000, 0)
	e := newRunEnds(func() time.Time { return now })
	transform := e.observing(func(obj any) (any, error) { return obj, nil })
	key := manifests.ObjectKey{Group: "batch", Kind: "Job", Namespace: "ns", Name: "a"}
	for _, seen := range []*unstructured.Unstructured{job("a"), job("a", "Complete", "True")} {
		if out, err := transform(seen); err != nil || out != seen {
			t.Fatalf("transform changed what it passes on: %v, %v", out, err)
		}
	}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
	cm.SetNamespace("ns")
	cm.SetName("a")
	_, _ = transform(cm)
	if phase, _ := endOf(e.lastSeen(key)); phase != manifests.PhaseCompleted {
		t.Fatalf("last seen of %s: %v, want its Complete state", key, e.lastSeen(key))
	}
	if got := e.lastSeen(manifests.ObjectKey{Kind: "ConfigMap", Namespace: "ns", Name: "a"}); got != nil {
		t.Fatalf("a ConfigMap was kept: %v", got)
	}
	now = now.Add(runEndMemory + time.Second)
	_, _ = transform(job("b"))
	if got := e.lastSeen(key); got != nil {
		t.Fatalf("%s is remembered after %s", key, runEndMemory)
	}
	if (*runEnds)(nil).lastSeen(key) != nil {
		t.Fatalf("a nil runEnds remembers something")
	}
}
