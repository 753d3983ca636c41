package api

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// RemediationStrategy says what happens once every attempt at a render has
// failed.
// +kubebuilder:validation:Enum=None;Rollback
type RemediationStrategy string

// Remediation strategies.
const (
	// RemediateNone leaves the failed render in place (the default): the
	// component keeps reporting the failure and correcting drift.
	RemediateNone RemediationStrategy = "None"
	// RemediateRollback applies the last render that was Ready again, kept
	// in a Secret beside the component, through the same waves, hooks,
	// purges and prunes as any render.
	RemediateRollback RemediationStrategy = "Rollback"
)

// Remediation says how often a failed attempt at a render is tried again
// and what happens once the last one failed, as helm-controller's
// upgrade.remediation. An attempt fails when one of its objects fails (a
// Job that reached its backoff limit, a Deployment past its progress
// deadline, a health check's failed expression), when the API server
// refuses an object, when it is not ready within the timeout, or when a
// test fails (unless the component ignores test failures).
// +kubebuilder:object:generate=true
type Remediation struct {
	// Retries is how many times a failed attempt at one render is tried
	// again, each after the retry interval and with a timeout of its own,
	// before the strategy runs; default 0: the first failure is remediated.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	Retries int32 `json:"retries,omitempty"`
	// Strategy is what happens once the retries are used up: None leaves the
	// failed render in place, Rollback applies the last render that was
	// Ready again (wave by wave, its hooks and purges included; objects only
	// the failed render had are pruned) and reports Ready=False with reason
	// RolledBack. The failed render is not tried again until the spec, the
	// source's revision or a reconcile request changes. Default None.
	// +optional
	Strategy RemediationStrategy `json:"strategy,omitempty"`
	// RemediateLastFailure, when false, leaves the last failed attempt in
	// place to be looked at, whatever the strategy; default true.
	// +optional
	RemediateLastFailure *bool `json:"remediateLastFailure,omitempty"`
}

// RemediationConfiguration gives a component's remediation of failed
// attempts. Without it, or with strategy None, a failed attempt stays in
// place, as it always did; Status.History records the attempts either way.
type RemediationConfiguration interface {
	GetRemediation() *Remediation
}

// Results of an attempt, in Status.Attempt and Status.History.
const (
	// ResultReady: every object of the render was applied and ready.
	ResultReady = "Ready"
	// ResultFailed: an object failed, was refused, or was not ready in time.
	ResultFailed = "Failed"
	// ResultRolledBack: the render was given up for the last Ready one.
	ResultRolledBack = "RolledBack"
)

// Attempt is the component's attempt at its current render: what counts its
// failures and, once it is rolled back, keeps the failed render from being
// tried again. A new generation, render or reconcile request starts a new
// attempt.
// +kubebuilder:object:generate=true
type Attempt struct {
	// Generation of the component the render is of.
	Generation int64 `json:"generation"`
	// RenderDigest is the digest of the rendered objects, "sha256:<hex>".
	RenderDigest string `json:"renderDigest"`
	// ReconcileRequest is the <operator>/reconcile-requested-at value the
	// attempt started under: a new one starts a new attempt.
	// +optional
	ReconcileRequest string `json:"reconcileRequest,omitempty"`
	// Started is when the current try began; the timeout counts from it.
	Started metav1.Time `json:"started"`
	// Failures counts the tries of this render that failed.
	// +optional
	Failures int32 `json:"failures,omitempty"`
	// Result is empty while a try is under way, then Ready, Failed or
	// RolledBack.
	// +optional
	Result string `json:"result,omitempty"`
	// Finished is when the last try ended.
	// +optional
	Finished *metav1.Time `json:"finished,omitempty"`
	// Message says why the last try failed.
	// +optional
	Message string `json:"message,omitempty"`
	// Tests is the run of the tests of the current try, when tests are
	// enabled: recorded before a test is created, it is what makes a test
	// run once per try.
	// +optional
	Tests *TestRun `json:"tests,omitempty"`
}
