package runonce

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Words of the status of a run-once object that is gone.
const (
	StatusDeletedUnfinished = "deleted before it finished; not run again for this render"
	StatusOutcomeUnseen     = "gone before its outcome was seen; counted as done, as Helm counts a deleted hook"
)

// RunsOnce tells whether objects of gvk run to completion and are created
// at most once per render.
func RunsOnce(gvk schema.GroupVersionKind) bool {
	return gvk.Group == "batch" && gvk.Kind == "Job"
}

// Ended tells whether a run-once object is being deleted or reached an
// end condition: it can be judged by this copy (EndOf).
func Ended(obj *unstructured.Unstructured) bool {
	_, _, reached := EndCondition(obj)
	return reached || obj.GetDeletionTimestamp() != nil
}

// OwnEndState is last, the end state kept of an object's name, when it is
// of the object with uid; nil when it is another's (the Job of an earlier
// render, of the same name) or uid is not known.
func OwnEndState(last *unstructured.Unstructured, uid types.UID, known bool) *unstructured.Unstructured {
	if last == nil || !known || last.GetUID() != uid {
		return nil
	}
	return last
}

// EndOf is the phase and status of a run-once object from the last state
// seen of it before it went (nil: none was seen).
func EndOf(last *unstructured.Unstructured) (manifests.Phase, string) {
	if last == nil {
		return manifests.PhaseCompleted, StatusOutcomeUnseen
	}
	if phase, status, reached := EndCondition(last); reached {
		return phase, status
	}
	return manifests.PhaseError, StatusDeletedUnfinished
}

// EndCondition is the phase and status of a run-once object by the end
// condition it reached: complete, or failed with its reason; reached is
// false when it reached none.
func EndCondition(obj *unstructured.Unstructured) (phase manifests.Phase, status string, reached bool) {
	conditions := readiness.Conditions(obj)
	for _, done := range []string{"Complete", "SuccessCriteriaMet"} {
		if c, ok := conditions[done]; ok && c.Status == "True" {
			return manifests.PhaseCompleted, "", true
		}
	}
	for _, failed := range []string{"Failed", "FailureTarget"} {
		if c, ok := conditions[failed]; ok && c.Status == "True" {
			return manifests.PhaseError, "Failed: " + readiness.WithReason(c.Reason, c.Message), true
		}
	}
	return "", "", false
}
