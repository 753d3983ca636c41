package component

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
)

// Reasons of the Ready condition.
const (
	ReasonReady           = "Ready"
	ReasonProcessing      = "Processing"
	ReasonPending         = "Pending"
	ReasonRetrying        = "Retrying"
	ReasonTimeout         = "Timeout"
	ReasonError           = "Error"
	ReasonDeleting        = "Deleting"
	ReasonDeletionBlocked = "DeletionBlocked"
	ReasonSuspended       = "Suspended"
	// ReasonRolledBack: the render failed and the last Ready one was
	// applied again in its place (Remediation).
	ReasonRolledBack = "RolledBack"
	// ReasonWriteLoop: an object was changed back after every write at one
	// render, and wavekit stopped writing it for a while
	// (engine.WriteLoopError names it and the fields).
	ReasonWriteLoop = "WriteLoop"
	// ReasonTestFailed: a test failed (Ready, and TestSuccess False).
	ReasonTestFailed = "TestFailed"
)

// Reasons of the TestSuccess condition besides ReasonTestFailed.
const (
	// ReasonTestRunning: the tests run (TestSuccess Unknown).
	ReasonTestRunning = "TestRunning"
	// ReasonTestSucceeded: every test passed (TestSuccess True).
	ReasonTestSucceeded = "TestSucceeded"
)

// stateOf maps a Ready reason to the component state.
var stateOf = map[string]State{
	ReasonReady:              StateReady,
	ReasonProcessing:         StateProcessing,
	ReasonPending:            StatePending,
	ReasonRetrying:           StatePending,
	ReasonTimeout:            StateError,
	ReasonError:              StateError,
	ReasonDeleting:           StateDeleting,
	ReasonDeletionBlocked:    StateDeletionPending,
	ReasonSuspended:          StatePending,
	ReasonRolledBack:         StateError,
	ReasonWriteLoop:          StateError,
	ReasonTestFailed:         StateError,
	ReasonVerificationFailed: StateError,
	ReasonTargetUnreachable:  StateError,
}

// setReady records the Ready condition, the state it implies, and the
// kstatus conditions beside it: Reconciling while work is under way or being
// retried, Stalled when only a change can help (stalled). kstatus, kubectl
// wait, Flux and Argo CD thus see Current, InProgress or Failed. Transition
// times change only when a condition's status changes, so a reconcile that
// finds the same situation writes the same status. The message is bounded
// to what the API server accepts (boundMessage), whatever its length.
func (s *Status) setReady(generation int64, reason, message string, stalled bool) {
	message = bound.Message(message, bound.ConditionLimit)
	status := metav1.ConditionFalse
	if reason == ReasonReady {
		status = metav1.ConditionTrue
		if !s.Installed {
			s.InstalledGeneration = generation
		}
		s.Installed = true
	}
	s.ObservedGeneration = generation
	s.State = stateFor(reason)
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{
		Type: ConditionReady, Status: status, Reason: reason, Message: message, ObservedGeneration: generation,
	})
	s.setFlag(ConditionReconciling, !stalled && reason != ReasonReady && reason != ReasonSuspended, generation, reason, message)
	s.setFlag(ConditionStalled, stalled, generation, reason, message)
}

// setFlag sets condition kind to True with reason and message, or removes it
// (kstatus reads an absent Reconciling or Stalled as False).
func (s *Status) setFlag(kind string, on bool, generation int64, reason, message string) {
	if !on {
		meta.RemoveStatusCondition(&s.Conditions, kind)
		return
	}
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{
		Type: kind, Status: metav1.ConditionTrue, Reason: reason, Message: bound.Message(message, bound.ConditionLimit), ObservedGeneration: generation,
	})
}

// IsInstalled tells whether the component has been Ready once. A status
// written before Installed existed counts as installed while it is Ready.
func (s *Status) IsInstalled() bool {
	return s.Installed || meta.IsStatusConditionTrue(s.Conditions, ConditionReady)
}

// isInstall tells whether a render at generation is the install: the
// component has not been Ready yet, or was first Ready at this generation.
func (s *Status) isInstall(generation int64) bool {
	return !s.IsInstalled() || (s.InstalledGeneration != 0 && s.InstalledGeneration == generation)
}

// ReadyCondition returns the Ready condition, or nil.
func (s *Status) ReadyCondition() *metav1.Condition {
	return meta.FindStatusCondition(s.Conditions, ConditionReady)
}

// stateFor is the state a Ready reason implies; a reason of its own (a
// refusal's) is an error.
func stateFor(reason string) State {
	if state, ok := stateOf[reason]; ok {
		return state
	}
	return StateError
}

// ReasonVerificationFailed: the source failed its verification
// (manifests.VerificationError), so nothing of it was rendered (Ready and
// SourceVerified False).
const ReasonVerificationFailed = "VerificationFailed"
