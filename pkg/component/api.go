package component

import (
	"time"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
)

// The types a component type implements and embeds, and the words its
// status uses, are declared in package internal/api, where the reconciler's
// own packages find them; these are the same types under the names users
// know. Their fields and methods are documented there.

// Component is the custom resource type of a component operator: its spec
// is the generator's parameters and its status embeds Status.
type Component = api.Component

// The optional interfaces below may be implemented by a component or by the
// value its GetSpec returns; the component is asked first.
type (
	// PlacementConfiguration overrides where the objects go and the release name.
	PlacementConfiguration = api.PlacementConfiguration
	// ClientConfiguration points to a kubeconfig Secret (in the component's
	// namespace) of a remote target cluster. An empty name means the local cluster.
	ClientConfiguration = api.ClientConfiguration
	// ImpersonationConfiguration names the identity every write to the target
	// is made as. A service account is given as "system:serviceaccount:ns:name".
	ImpersonationConfiguration = api.ImpersonationConfiguration
	// SuspensionConfiguration stops applying (deletion still works).
	SuspensionConfiguration = api.SuspensionConfiguration
	// PolicyConfiguration sets default policies for the component's objects.
	PolicyConfiguration = api.PolicyConfiguration
	// TypeConfiguration declares extra types whose foreign instances block deletion.
	TypeConfiguration = api.TypeConfiguration
	// RequeueConfiguration sets how long after success the component is looked at again.
	RequeueConfiguration = api.RequeueConfiguration
	// RetryConfiguration sets how long after a retriable error the component is retried.
	RetryConfiguration = api.RetryConfiguration
	// TimeoutConfiguration sets how long the component may take to become ready.
	TimeoutConfiguration = api.TimeoutConfiguration
	// ReapplyConfiguration sets after how long every object is applied again.
	ReapplyConfiguration = api.ReapplyConfiguration
	// DependencyConfiguration names the components, of the same type, that
	// must be Ready at their current generation before this one is applied.
	DependencyConfiguration = api.DependencyConfiguration
	// ObjectDependencyConfiguration names the objects a component waits for.
	ObjectDependencyConfiguration = api.ObjectDependencyConfiguration
	// DriftConfiguration says how changes that others make to the
	// component's objects are treated.
	DriftConfiguration = api.DriftConfiguration
	// HealthCheckConfiguration gives CEL health checks for kinds whose status
	// kstatus cannot read.
	HealthCheckConfiguration = api.HealthCheckConfiguration
	// RemediationConfiguration gives a component's remediation of failed attempts.
	RemediationConfiguration = api.RemediationConfiguration
	// TestConfiguration turns on a component's tests.
	TestConfiguration = api.TestConfiguration
)

// ObjectDependency is an object of any kind that must be ready before the
// component is applied (ObjectDependencyConfiguration).
type ObjectDependency = api.ObjectDependency

// Status is embedded by the status of every component type.
type Status = api.Status

// State summarises a component's status.
type State = api.State

// States of a component.
const (
	StateReady           = api.StateReady
	StatePending         = api.StatePending
	StateProcessing      = api.StateProcessing
	StateDeletionPending = api.StateDeletionPending
	StateDeleting        = api.StateDeleting
	StateError           = api.StateError
)

// Condition types of a component, as kstatus reads them.
const (
	ConditionReady          = api.ConditionReady
	ConditionReconciling    = api.ConditionReconciling
	ConditionStalled        = api.ConditionStalled
	ConditionTestSuccess    = api.ConditionTestSuccess
	ConditionDrifted        = api.ConditionDrifted
	ConditionSourceVerified = api.ConditionSourceVerified
)

// Reasons of the Ready condition.
const (
	ReasonReady              = api.ReasonReady
	ReasonProcessing         = api.ReasonProcessing
	ReasonPending            = api.ReasonPending
	ReasonRetrying           = api.ReasonRetrying
	ReasonTimeout            = api.ReasonTimeout
	ReasonError              = api.ReasonError
	ReasonDeleting           = api.ReasonDeleting
	ReasonDeletionBlocked    = api.ReasonDeletionBlocked
	ReasonSuspended          = api.ReasonSuspended
	ReasonRolledBack         = api.ReasonRolledBack
	ReasonWriteLoop          = api.ReasonWriteLoop
	ReasonTestFailed         = api.ReasonTestFailed
	ReasonVerificationFailed = api.ReasonVerificationFailed
	ReasonTargetUnreachable  = api.ReasonTargetUnreachable
)

// Reasons of the TestSuccess, Drifted and SourceVerified conditions.
const (
	ReasonTestRunning   = api.ReasonTestRunning
	ReasonTestSucceeded = api.ReasonTestSucceeded
	ReasonDriftDetected = api.ReasonDriftDetected
	ReasonNoDrift       = api.ReasonNoDrift
	ReasonVerified      = api.ReasonVerified
)

// Reasons of Events and alerts that are not a condition's.
const (
	ReasonStatusRejected         = api.ReasonStatusRejected
	ReasonStatusAdmissionRefused = api.ReasonStatusAdmissionRefused
	ReasonStatusFieldsPruned     = api.ReasonStatusFieldsPruned
	ReasonDriftCorrected         = api.ReasonDriftCorrected
)

// Annotation key suffixes that a person or a tool sets on a component to ask
// for a pass; the full key is "<operator name>/<suffix>" (manifests.Key).
const (
	AnnotationReconcileRequestedAt = api.AnnotationReconcileRequestedAt
	AnnotationForce                = api.AnnotationForce
	AnnotationRollbackRequestedAt  = api.AnnotationRollbackRequestedAt
)

// Attempt is the component's attempt at its current render (Status.Attempt).
type Attempt = api.Attempt

// HistoryEntry is one attempt at a render, as Status.History records it.
type HistoryEntry = api.HistoryEntry

// HistoryLimit is how many attempts Status.History keeps, newest last.
const HistoryLimit = api.HistoryLimit

// StoredRender describes the last render that was Ready, kept for a rollback.
type StoredRender = api.StoredRender

// Results of an attempt, in Status.Attempt and Status.History.
const (
	ResultReady      = api.ResultReady
	ResultFailed     = api.ResultFailed
	ResultRolledBack = api.ResultRolledBack
)

// Remediation says how often a failed attempt at a render is tried again
// and what happens once the last one failed.
type Remediation = api.Remediation

// RemediationStrategy says what happens once every attempt at a render has
// failed.
type RemediationStrategy = api.RemediationStrategy

// Remediation strategies.
const (
	RemediateNone     = api.RemediateNone
	RemediateRollback = api.RemediateRollback
)

// Test says whether and how a component's tests run.
type Test = api.Test

// TestRun is the run of the tests of an attempt's current try.
type TestRun = api.TestRun

// Results of a test run, in Attempt.Tests.
const (
	TestsPassed = api.TestsPassed
	TestsFailed = api.TestsFailed
)

// RetriableError asks for another attempt, after RetryAfter if set.
type RetriableError = api.RetriableError

// Retriable wraps err so the reconciler retries, after retryAfter if not zero.
func Retriable(err error, retryAfter time.Duration) error {
	return api.Retriable(err, retryAfter)
}
