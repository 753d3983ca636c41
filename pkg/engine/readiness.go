package engine

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// readiness is what the applier concludes about one live object.
type readiness struct {
	// Status is the kstatus status: Current means ready.
	Status status.Status
	// Message explains a status other than Current.
	Message string
	// Verdict says that Message is why the object is not ready, which
	// changes only when the object's state does (an APIService the
	// aggregator cannot reach), rather than how far it got (Available:
	// 1/3): the status keeps it.
	Verdict bool
}

func (r readiness) ready() bool { return r.Status == status.CurrentStatus }

func (r readiness) failed() bool { return r.Status == status.FailedStatus }

// Readiness returns what wavekit concludes about a live object, as the
// waves use it: its kstatus status (Current means ready) with the rules for
// CRDs, APIServices and Jobs, those of StatefulSets and DaemonSets with
// updateStrategy OnDelete and paused Deployments, and those of hint, and a message for any
// status other than Current. Tools that show an applied object's state
// (wavekit status) use it, so they agree with what a pass waits for.
func Readiness(u *unstructured.Unstructured, hint manifests.StatusHint) (status.Status, string) {
	r := computeReadiness(u, hint)
	return r.Status, r.Message
}

// computeReadiness combines kstatus with the object's status hint and the
// extra rules for CRDs (Established and NamesAccepted), APIServices
// (Available) and the workloads kstatus takes a shortcut for
// (beyondShortcuts).
func computeReadiness(u *unstructured.Unstructured, hint manifests.StatusHint) readiness {
	result, err := status.Compute(u)
	if err != nil {
		return readiness{Status: status.UnknownStatus, Message: fmt.Sprintf("computing status: %v", err)}
	}
	r := beyondShortcuts(u, readiness{Status: result.Status, Message: result.Message})
	if r.failed() {
		return withFailureMessage(u, r, result.Conditions)
	}
	if !r.ready() {
		return r
	}
	gvk := u.GroupVersionKind()
	switch {
	case gvk.Group == "batch" && gvk.Kind == "Job":
		return requireJobComplete(u, r)
	case kinds.IsCRD(gvk.Group, gvk.Kind):
		return requireConditions(u, r, "Established", "NamesAccepted")
	case kinds.IsAPIService(gvk.Group, gvk.Kind):
		r = requireConditions(u, r, "Available")
		r.Verdict = !r.ready()
		return r
	}
	return applyHint(u, r, hint)
}

func applyHint(u *unstructured.Unstructured, r readiness, hint manifests.StatusHint) readiness {
	if hint.HasObservedGeneration {
		observed, found, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
		if !found || observed != u.GetGeneration() {
			return readiness{Status: status.InProgressStatus, Message: fmt.Sprintf("status.observedGeneration is %d, generation is %d", observed, u.GetGeneration())}
		}
	}
	if hint.HasReadyCondition {
		r = requireConditions(u, r, "Ready")
	}
	if len(hint.Conditions) > 0 {
		r = requireConditions(u, r, hint.Conditions...)
	}
	return r
}

// requireConditions keeps r unless one of the condition types is not True.
func requireConditions(u *unstructured.Unstructured, r readiness, types ...string) readiness {
	if !r.ready() {
		return r
	}
	conditions := conditionsOf(u)
	var missing []string
	for _, t := range types {
		if c, ok := conditions[t]; !ok || c.status != "True" {
			missing = append(missing, describeCondition(t, c, ok))
		}
	}
	if len(missing) > 0 {
		return readiness{Status: status.InProgressStatus, Message: strings.Join(missing, "; ")}
	}
	return r
}

type condition struct{ status, reason, message string }

func conditionsOf(u *unstructured.Unstructured) map[string]condition {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	result := make(map[string]condition, len(list))
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		t, _ := m["type"].(string)
		s, _ := m["status"].(string)
		reason, _ := m["reason"].(string)
		message, _ := m["message"].(string)
		result[t] = condition{status: s, reason: reason, message: message}
	}
	return result
}

func describeCondition(t string, c condition, found bool) string {
	if !found {
		return "condition " + t + " not set yet"
	}
	text := fmt.Sprintf("condition %s is %s", t, c.status)
	if c.message != "" {
		text += ": " + c.message
	}
	return text
}

// requireJobComplete keeps a Job in progress until its Complete condition is
// True. kstatus calls a Job Current as soon as it has started, so without
// this the next wave would start while the Job still runs, and its failure
// would come too late to hold anything.
func requireJobComplete(u *unstructured.Unstructured, r readiness) readiness {
	if c, ok := conditionsOf(u)["Complete"]; ok && c.status == "True" {
		return r
	}
	return readiness{Status: status.InProgressStatus, Message: r.Message}
}

// withFailureMessage replaces kstatus's summary of a failed object with the
// object's own words: its Failed condition (a Job's reason and message), or
// else the reason and message of the Stalled condition kstatus derived from
// the object (a Deployment's Progressing condition past its deadline, which
// names the ReplicaSet), when they say more than the summary.
func withFailureMessage(u *unstructured.Unstructured, r readiness, derived []status.Condition) readiness {
	if c, ok := conditionsOf(u)["Failed"]; ok && c.status == "True" && c.message != "" {
		r.Message = withReason(c.reason, c.message)
		return r
	}
	for _, c := range derived {
		if c.Type == status.ConditionStalled && c.Message != "" && c.Message != r.Message {
			r.Message = withReason(c.Reason, c.Message)
		}
	}
	return r
}

// withReason prefixes message with reason, if there is one.
func withReason(reason, message string) string {
	if reason == "" {
		return message
	}
	return reason + ": " + message
}
