package api

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Test says whether and how a component's tests run, as helm-controller's
// spec.test: the objects its render annotates <operator>/test-hook (Helm's
// test hooks), which are never applied with the other objects.
// +kubebuilder:object:generate=true
type Test struct {
	// Enable runs the tests once the objects of an install or upgrade are
	// applied and ready, as helm test runs them: one at a time in hook
	// weight and name order, each created anew and waited for until it
	// passes (a Job Complete, a Pod Succeeded) or fails, stopping at the
	// first failure; their hook delete policies are honoured. They run once
	// per attempt at a render (a new generation, source revision or
	// reconcile request), and again with each retry of a failed attempt.
	// Default false: tests never run.
	// +optional
	Enable bool `json:"enable,omitempty"`
	// Timeout bounds one run of the tests: a test still running then has
	// failed. Default: the timeout of the component (spec.intervals.timeout
	// of the reference operator, 10m unless set).
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// IgnoreFailures, when true, reports a failed test in the TestSuccess
	// condition only: Ready stays True and the attempt counts as Ready.
	// Default false: a failed test makes Ready False with reason TestFailed,
	// naming the test, and fails the attempt, which remediation retries or
	// rolls back.
	// +optional
	IgnoreFailures bool `json:"ignoreFailures,omitempty"`
}

// TestConfiguration turns on a component's tests (see Test). Without it, or
// with Enable false, tests never run and the TestSuccess condition is absent.
type TestConfiguration interface {
	GetTest() *Test
}

// Results of a test run, in Attempt.Tests.
const (
	TestsPassed = "Passed"
	TestsFailed = "Failed"
)

// TestRun is the run of the tests of an attempt's current try.
// +kubebuilder:object:generate=true
type TestRun struct {
	// Started is when the run began: its timeout counts from it, and a run
	// is known by it, so that a test runs once per run, also across
	// restarts of the operator.
	Started metav1.Time `json:"started"`
	// Result is empty while the tests run, then Passed or Failed.
	// +kubebuilder:validation:Enum=Passed;Failed
	// +optional
	Result string `json:"result,omitempty"`
	// Message says how many tests passed, or which one failed and why.
	// +optional
	Message string `json:"message,omitempty"`
}
