package runonce

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

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
		{"running", job("a"), manifests.PhaseError, StatusDeletedUnfinished},
		{"suspended", job("a", "Suspended", "True", "Complete", "False"), manifests.PhaseError, StatusDeletedUnfinished},
		{"never seen", nil, manifests.PhaseCompleted, StatusOutcomeUnseen},
	}
	for _, c := range cases {
		phase, status := EndOf(c.last)
		if phase != c.phase || status != c.status {
			t.Errorf("%s: %s %q, want %s %q", c.name, phase, status, c.phase, c.status)
		}
	}
}

// TestOwnEndState: only an end state of the UID that ran at this render
// judges a run-once object; the previous render's Job of the same name
// never does, nor any end state when the UID is not known.
func TestOwnEndState(t *testing.T) {
	previous := job("hook", "Complete", "True")
	previous.SetUID("previous")
	own := job("hook", "Failed", "True")
	own.SetUID("own")
	cases := []struct {
		name  string
		last  *unstructured.Unstructured
		uid   types.UID
		known bool
		want  *unstructured.Unstructured
	}{
		{"own end state", own, "own", true, own},
		{"the previous render's Complete", previous, "own", true, nil},
		{"UID not known (a restart)", previous, "", false, nil},
		{"nothing kept", nil, "own", true, nil},
	}
	for _, c := range cases {
		if got := OwnEndState(c.last, c.uid, c.known); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
