package readiness

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// State is what the applier concludes about one live object.
type State struct {
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

func (r State) Ready() bool { return r.Status == status.CurrentStatus }

func (r State) Failed() bool { return r.Status == status.FailedStatus }

// Readiness returns what wavekit concludes about a live object, as the
// waves use it: its kstatus status (Current means ready) with the rules for
// CRDs, APIServices and Jobs, those of StatefulSets and DaemonSets with
// updateStrategy OnDelete and paused Deployments, and those of hint, and a message for any
// status other than Current. Tools that show an applied object's state
// (wavekit status) use it, so they agree with what a pass waits for.
func Readiness(u *unstructured.Unstructured, hint manifests.StatusHint) (status.Status, string) {
	r := Compute(u, hint)
	return r.Status, r.Message
}

// Compute combines kstatus with the object's status hint and the
// extra rules for CRDs (Established and NamesAccepted), APIServices
// (Available) and the workloads kstatus takes a shortcut for
// (beyondShortcuts).
func Compute(u *unstructured.Unstructured, hint manifests.StatusHint) State {
	result, err := status.Compute(u)
	if err != nil {
		return State{Status: status.UnknownStatus, Message: fmt.Sprintf("computing status: %v", err)}
	}
	r := beyondShortcuts(u, State{Status: result.Status, Message: result.Message})
	if r.Failed() {
		return withFailureMessage(u, r, result.Conditions)
	}
	if !r.Ready() {
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
		r.Verdict = !r.Ready()
		return r
	}
	return applyHint(u, r, hint)
}

func applyHint(u *unstructured.Unstructured, r State, hint manifests.StatusHint) State {
	if hint.HasObservedGeneration {
		observed, found, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
		if !found || observed != u.GetGeneration() {
			return State{Status: status.InProgressStatus, Message: fmt.Sprintf("status.observedGeneration is %d, generation is %d", observed, u.GetGeneration())}
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
func requireConditions(u *unstructured.Unstructured, r State, types ...string) State {
	if !r.Ready() {
		return r
	}
	conditions := Conditions(u)
	var missing []string
	for _, t := range types {
		if c, ok := conditions[t]; !ok || c.Status != "True" {
			missing = append(missing, describeCondition(t, c, ok))
		}
	}
	if len(missing) > 0 {
		return State{Status: status.InProgressStatus, Message: strings.Join(missing, "; ")}
	}
	return r
}

// Condition is one of an object's status conditions.
type Condition struct{ Status, Reason, Message string }

// Conditions returns the object's status conditions by type.
func Conditions(u *unstructured.Unstructured) map[string]Condition {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	result := make(map[string]Condition, len(list))
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		t, _ := m["type"].(string)
		s, _ := m["status"].(string)
		reason, _ := m["reason"].(string)
		message, _ := m["message"].(string)
		result[t] = Condition{Status: s, Reason: reason, Message: message}
	}
	return result
}

func describeCondition(t string, c Condition, found bool) string {
	if !found {
		return "condition " + t + " not set yet"
	}
	text := fmt.Sprintf("condition %s is %s", t, c.Status)
	if c.Message != "" {
		text += ": " + c.Message
	}
	return text
}

// requireJobComplete keeps a Job in progress until its Complete condition is
// True. kstatus calls a Job Current as soon as it has started, so without
// this the next wave would start while the Job still runs, and its failure
// would come too late to hold anything.
func requireJobComplete(u *unstructured.Unstructured, r State) State {
	if c, ok := Conditions(u)["Complete"]; ok && c.Status == "True" {
		return r
	}
	return State{Status: status.InProgressStatus, Message: r.Message}
}

// withFailureMessage replaces kstatus's summary of a failed object with the
// object's own words: its Failed condition (a Job's reason and message), or
// else the reason and message of the Stalled condition kstatus derived from
// the object (a Deployment's Progressing condition past its deadline, which
// names the ReplicaSet), when they say more than the summary.
func withFailureMessage(u *unstructured.Unstructured, r State, derived []status.Condition) State {
	if c, ok := Conditions(u)["Failed"]; ok && c.Status == "True" && c.Message != "" {
		r.Message = WithReason(c.Reason, c.Message)
		return r
	}
	for _, c := range derived {
		if c.Type == status.ConditionStalled && c.Message != "" && c.Message != r.Message {
			r.Message = WithReason(c.Reason, c.Message)
		}
	}
	return r
}

// WithReason prefixes message with reason, if there is one.
func WithReason(reason, message string) string {
	if reason == "" {
		return message
	}
	return reason + ": " + message
}

// Phase is the phase, status and progress of an object in phase,
// judged by its live object (by the owner's health checks of its kind, else
// kstatus); nil means the object is on its way (being recreated). A failed
// object's status says why; an object in progress has its kstatus status
// only ("InProgress"), and what it says of its progress ("Available: 1/2")
// is returned apart, for waits, so that the inventory does not change with
// every replica that becomes available — unless what it says is a verdict
// (an APIService's Available condition False, with the aggregator's
// reason), which the status keeps.
func Phase(phase manifests.Phase, live *unstructured.Unstructured, health HealthChecks, hint manifests.StatusHint) (manifests.Phase, string, string) {
	if live == nil {
		return phase, "waiting for the old object to be deleted", ""
	}
	r, judged := health.Judge(live)
	if !judged {
		r = Compute(live, hint)
	}
	state, progress := string(r.Status), r.Message
	switch {
	case r.Ready():
		return manifests.PhaseReady, "", "" // Ready says Current
	case r.Failed():
		return manifests.PhaseError, withMessage(state, r.Message), ""
	case r.Verdict:
		state, progress = withMessage(state, r.Message), ""
	}
	if phase == manifests.PhaseReady || phase == manifests.PhaseError {
		phase = manifests.PhaseUpdating
	}
	return phase, state, progress
}

// withMessage is "status: message", or status when there is no message.
func withMessage(status, message string) string {
	if message == "" {
		return status
	}
	return status + ": " + message
}
