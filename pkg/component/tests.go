package component

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/attempts"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// startTests starts the tests of a render applied and ready (ready is that
// outcome), if they are enabled and have not run for the attempt's try. The
// start is recorded in the Reconcile's status write, before any test is
// created, so that a restart of the operator goes on with the same run; the
// next Reconcile, at once, runs them.
func (p *pass) startTests(ready outcome.Outcome) outcome.Outcome {
	test := p.settings.Test
	status := p.component.GetStatus()
	switch {
	case test == nil:
		conditions.RemoveTest(status)
		return ready
	case status.Attempt == nil || p.r.pruned.Drops("attempt.tests"):
		return p.fail(p.outdatedCRD())
	case status.Attempt.Tests != nil:
		return p.testsOver(ready, test, status.Attempt.Tests)
	}
	status.Attempt.Tests = &TestRun{Started: metav1.Now()}
	conditions.SetTest(status, p.component.GetGeneration(), metav1.ConditionUnknown, ReasonTestRunning, "running the tests")
	return outcome.Outcome{Reason: ReasonProcessing, Message: "running the tests", Requeue: outcome.NextPassNow}
}

// tested runs one pass of the attempt's tests while they run (ready is the
// outcome the render's pass had when they began) and returns the outcome of
// the Reconcile: Processing while they run; once they are over, ready with
// their result in its message, or TestFailed naming the test.
func (p *pass) tested(ctx context.Context, tg *targets.Target, owner engine.Owner, objects []client.Object, ready outcome.Outcome) outcome.Outcome {
	test := p.settings.Test
	if test == nil {
		return p.startTests(ready)
	}
	if o, over := p.runTests(ctx, tg, owner, objects, test); !over {
		return o
	}
	return p.testsOver(ready, test, p.component.GetStatus().Attempt.Tests)
}

// testsOver is the outcome of a test run that is over: ready, with the
// tests' result in its message, once they passed or their failures are
// ignored; TestFailed, naming the test, once one failed.
func (p *pass) testsOver(ready outcome.Outcome, test *Test, tests *TestRun) outcome.Outcome {
	switch {
	case tests.Result == TestsPassed:
		ready.Message += "; " + tests.Message
	case test.IgnoreFailures:
		ready.Message += "; " + tests.Message + " (test failures are ignored)"
	default:
		return outcome.Outcome{Reason: ReasonTestFailed, Message: tests.Message, Requeue: p.settings.Retry, Stalled: true, FailedAttempt: true}
	}
	return ready
}

// outdatedCRD says that the component's CRD drops status.attempt.tests.
func (p *pass) outdatedCRD() error {
	return &manifests.UserError{Err: errors.New("the API server dropped status.attempt.tests: the CRD of " + p.id.String() +
		" predates tests; regenerate it with controller-gen and apply it before enabling tests")}
}

// runTests runs one pass of the attempt's test run. It reports whether the
// run is over (the result is then recorded in the attempt and the
// TestSuccess condition); until then its outcome says what the run waits
// for.
func (p *pass) runTests(ctx context.Context, tg *targets.Target, owner engine.Owner, objects []client.Object, test *Test) (outcome.Outcome, bool) {
	status := p.component.GetStatus()
	deadline := status.Attempt.Tests.Started.Add(p.testTimeout(test))
	res, err := tg.Applier.Test(ctx, owner, objects, status.Inventory, engine.TestOptions{
		Run: p.testRunName(), Deadline: deadline, Save: p.writeAhead,
	})
	if errors.Is(err, outcome.ErrWrittenAhead) {
		return outcome.Continued(&p.status.Written), false // the next pass creates the tests
	}
	status.Inventory = res.Inventory
	p.status.RecordActions(res.Actions)
	if err == nil {
		_, err = p.r.watchKinds(ctx, tg, res.Inventory)
	}
	if err != nil {
		o := p.fail(fmt.Errorf("running the tests: %w", err))
		o.FailedAttempt = attempts.IsFailure(err)
		return o, false
	}
	generation := p.component.GetGeneration()
	if !res.Done {
		message := outcome.DescribeWaiting("running the tests", res.Waiting)
		conditions.SetTest(status, generation, metav1.ConditionUnknown, ReasonTestRunning, message)
		return outcome.Outcome{Reason: ReasonProcessing, Message: message, Requeue: max(time.Until(deadline), 0) + time.Second}, false
	}
	tests := status.Attempt.Tests
	tests.Result, tests.Message = testsResult(res)
	if tests.Result == TestsPassed {
		conditions.SetTest(status, generation, metav1.ConditionTrue, ReasonTestSucceeded, tests.Message)
	} else {
		conditions.SetTest(status, generation, metav1.ConditionFalse, ReasonTestFailed, tests.Message)
	}
	return outcome.Outcome{}, true
}

// testsResult says how a run that is over went.
func testsResult(res engine.TestResult) (string, string) {
	if failed, ok := res.Failed(); ok {
		return TestsFailed, "test " + failed.String()
	}
	switch n := len(res.Tests); n {
	case 0:
		return TestsPassed, "no tests in the render"
	case 1:
		return TestsPassed, "1 test passed"
	default:
		return TestsPassed, fmt.Sprintf("%d tests passed", n)
	}
}

// testRunName names the test run of the attempt's try: the attempt, its
// failures so far and when the run started.
func (p *pass) testRunName() string {
	att := p.component.GetStatus().Attempt
	return fmt.Sprintf("%d/%s/%s/%d/%s", att.Generation, att.RenderDigest, att.ReconcileRequest, att.Failures,
		att.Tests.Started.UTC().Format(time.RFC3339))
}

func (p *pass) testTimeout(test *Test) time.Duration {
	if test.Timeout != nil && test.Timeout.Duration > 0 {
		return test.Timeout.Duration
	}
	return p.settings.Timeout
}
