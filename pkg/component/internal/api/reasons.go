package api

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
	// ReasonVerificationFailed: the source failed its verification
	// (manifests.VerificationError), so nothing of it was rendered (Ready and
	// SourceVerified False).
	ReasonVerificationFailed = "VerificationFailed"
	// ReasonTargetUnreachable: the Reconcile failed because the target
	// cluster's API server did not answer (a refused or reset connection, a
	// name that does not resolve, a dial, TLS handshake or read timeout, a
	// lost HTTP/2 connection, a 503). It is retried as a passing error
	// (Reconciling, never Stalled: no change of the component helps, the
	// cluster's return does); the message holds the error.
	ReasonTargetUnreachable = "TargetUnreachable"
)

// Reasons of the TestSuccess condition besides ReasonTestFailed.
const (
	// ReasonTestRunning: the tests run (TestSuccess Unknown).
	ReasonTestRunning = "TestRunning"
	// ReasonTestSucceeded: every test passed (TestSuccess True).
	ReasonTestSucceeded = "TestSucceeded"
)

// ConditionDrifted says, in drift mode Warn, whether applied objects no
// longer hold what was applied: True names the objects and the JSON
// pointers of the fields that differ. Other modes leave it out.
const ConditionDrifted = "Drifted"

// Reasons of the Drifted condition and its Event.
const (
	ReasonDriftDetected = "DriftDetected"
	ReasonNoDrift       = "NoDrift"
)

// ConditionSourceVerified says whether the source a component asks to
// verify (a signature, a provenance file) passed: True with what was
// verified with which key, False with why not. It is absent for a
// component that asks for no verification.
const ConditionSourceVerified = "SourceVerified"

// ReasonVerified is the reason of SourceVerified True.
const ReasonVerified = "Succeeded"

// Reasons of Events and alerts that are not the Ready condition's.
const (
	// ReasonStatusRejected is the reason of the Event that says the API
	// server rejected a component's status as invalid.
	ReasonStatusRejected = "StatusRejected"
	// ReasonStatusAdmissionRefused is the reason of the Event that says an
	// admission policy or webhook refused a component's status write.
	ReasonStatusAdmissionRefused = "StatusAdmissionRefused"
	// ReasonStatusFieldsPruned is the reason of the Warning Event that says
	// the component's CustomResourceDefinition drops status fields the
	// framework writes.
	ReasonStatusFieldsPruned = "StatusFieldsPruned"
	// ReasonDriftCorrected is the reason of the alert of a pass that wrote
	// objects back after others changed them.
	ReasonDriftCorrected = "DriftCorrected"
)
