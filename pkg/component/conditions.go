package component

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
)

// stateOf maps a Ready reason to the component state.
var stateOf = map[string]State{
	ReasonReady:           StateReady,
	ReasonProcessing:      StateProcessing,
	ReasonPending:         StatePending,
	ReasonRetrying:        StatePending,
	ReasonTimeout:         StateError,
	ReasonError:           StateError,
	ReasonDeleting:        StateDeleting,
	ReasonDeletionBlocked: StateDeletionPending,
	ReasonSuspended:       StatePending,
}

// setReady records the Ready condition and the state it implies. The
// transition time changes only when the condition's status changes, so a
// reconcile that finds the same situation writes the same status.
func (s *Status) setReady(generation int64, reason, message string) {
	status := metav1.ConditionFalse
	if reason == ReasonReady {
		status = metav1.ConditionTrue
	}
	s.ObservedGeneration = generation
	s.State = stateOf[reason]
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{
		Type: ConditionReady, Status: status, Reason: reason, Message: message, ObservedGeneration: generation,
	})
}

// ReadyCondition returns the Ready condition, or nil.
func (s *Status) ReadyCondition() *metav1.Condition {
	return meta.FindStatusCondition(s.Conditions, ConditionReady)
}
