package conditions

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// stateOf maps a Ready reason to the component state.
var stateOf = map[string]api.State{
	api.ReasonReady:              api.StateReady,
	api.ReasonProcessing:         api.StateProcessing,
	api.ReasonPending:            api.StatePending,
	api.ReasonRetrying:           api.StatePending,
	api.ReasonTimeout:            api.StateError,
	api.ReasonError:              api.StateError,
	api.ReasonDeleting:           api.StateDeleting,
	api.ReasonDeletionBlocked:    api.StateDeletionPending,
	api.ReasonSuspended:          api.StatePending,
	api.ReasonRolledBack:         api.StateError,
	api.ReasonWriteLoop:          api.StateError,
	api.ReasonTestFailed:         api.StateError,
	api.ReasonVerificationFailed: api.StateError,
	api.ReasonTargetUnreachable:  api.StateError,
}

// SetReady records the Ready condition, the state it implies, and the
// kstatus conditions beside it: Reconciling while work is under way or being
// retried, Stalled when only a change can help (stalled). kstatus, kubectl
// wait, Flux and Argo CD thus see Current, InProgress or Failed. Transition
// times change only when a condition's status changes, so a reconcile that
// finds the same situation writes the same status. The message is bounded
// to what the API server accepts (bound.Message), whatever its length.
func SetReady(s *api.Status, generation int64, reason, message string, stalled bool) {
	message = bound.Message(message, bound.ConditionLimit)
	status := metav1.ConditionFalse
	if reason == api.ReasonReady {
		status = metav1.ConditionTrue
		if !s.Installed {
			s.InstalledGeneration = generation
		}
		s.Installed = true
	}
	s.ObservedGeneration = generation
	s.State = StateFor(reason)
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{
		Type: api.ConditionReady, Status: status, Reason: reason, Message: message, ObservedGeneration: generation,
	})
	setFlag(s, api.ConditionReconciling, !stalled && reason != api.ReasonReady && reason != api.ReasonSuspended, generation, reason, message)
	setFlag(s, api.ConditionStalled, stalled, generation, reason, message)
}

// setFlag sets condition kind to True with reason and message, or removes it
// (kstatus reads an absent Reconciling or Stalled as False).
func setFlag(s *api.Status, kind string, on bool, generation int64, reason, message string) {
	if !on {
		meta.RemoveStatusCondition(&s.Conditions, kind)
		return
	}
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{
		Type: kind, Status: metav1.ConditionTrue, Reason: reason, Message: bound.Message(message, bound.ConditionLimit), ObservedGeneration: generation,
	})
}

// StateFor is the state a Ready reason implies; a reason of its own (a
// refusal's) is an error.
func StateFor(reason string) api.State {
	if state, ok := stateOf[reason]; ok {
		return state
	}
	return api.StateError
}

// IsInstall tells whether a render at generation is the install: the
// component has not been Ready yet, or was first Ready at this generation.
func IsInstall(s *api.Status, generation int64) bool {
	return !s.IsInstalled() || (s.InstalledGeneration != 0 && s.InstalledGeneration == generation)
}

// SetTest records the TestSuccess condition.
func SetTest(s *api.Status, generation int64, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{
		Type: api.ConditionTestSuccess, Status: status, Reason: reason,
		Message: bound.Message(message, bound.ConditionLimit), ObservedGeneration: generation,
	})
}

// RemoveTest removes the TestSuccess condition of a component whose tests
// are not enabled.
func RemoveTest(s *api.Status) {
	meta.RemoveStatusCondition(&s.Conditions, api.ConditionTestSuccess)
}

// SetSourceVerified sets SourceVerified after a render: from what the
// generator reported of its source, or from the verification error that
// stopped the render. Any other render error leaves it as it was.
func SetSourceVerified(s *api.Status, generation int64, renderErr error, source *manifests.SourceInfo) {
	var failed *manifests.VerificationError
	switch {
	case errors.As(renderErr, &failed):
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: api.ConditionSourceVerified, Status: metav1.ConditionFalse,
			Reason: api.ReasonVerificationFailed, Message: bound.Message(failed.Error(), bound.ConditionLimit), ObservedGeneration: generation})
	case renderErr != nil:
	case source != nil && source.Verified != "":
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: api.ConditionSourceVerified, Status: metav1.ConditionTrue,
			Reason: api.ReasonVerified, Message: bound.Message(source.Verified, bound.ConditionLimit), ObservedGeneration: generation})
	default:
		meta.RemoveStatusCondition(&s.Conditions, api.ConditionSourceVerified)
	}
}

// driftMessageLimit bounds the Drifted condition's message: the first
// objects with their paths, then "… and N more".
const driftMessageLimit = 4096

// SetDrifted records, in drift mode Warn, what the pass res found drifted
// and left in the Drifted condition: True naming them, False once every
// object was compared and none drifted. In other modes it removes it.
func SetDrifted(s *api.Status, generation int64, mode manifests.DriftMode, res engine.Result) {
	if mode != manifests.DriftWarn {
		meta.RemoveStatusCondition(&s.Conditions, api.ConditionDrifted)
		return
	}
	switch {
	case len(res.Drifted) > 0:
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{
			Type: api.ConditionDrifted, Status: metav1.ConditionTrue, Reason: api.ReasonDriftDetected, ObservedGeneration: generation,
			Message: bound.Problems(Drifts(res.Drifted), "; ", 0, driftMessageLimit),
		})
	case res.Done: // every object was compared
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{
			Type: api.ConditionDrifted, Status: metav1.ConditionFalse, Reason: api.ReasonNoDrift, ObservedGeneration: generation,
			Message: "every object holds what was applied",
		})
	}
}

// Drifts names each drifted object with its paths:
// "ConfigMap ns/settings: /data/value".
func Drifts(drifts []engine.Drift) []string {
	out := make([]string, len(drifts))
	for i, d := range drifts {
		out[i] = fmt.Sprintf("%s: %s", d.Object, strings.Join(d.Paths, ", "))
	}
	return out
}
