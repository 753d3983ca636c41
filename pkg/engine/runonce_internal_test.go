package engine

import (
	"testing"

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
