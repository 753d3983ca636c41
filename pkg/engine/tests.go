package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.opentelemetry.io/otel/codes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// TestResult is what a pass of a test run did and where the run stands.
// Result.Done says the run is over: every test ran or one failed, and the
// tests the run deletes are gone.
type TestResult struct {
	Result
	// Tests are the rendered tests in the order a run creates them.
	Tests []TestStatus
}

// Failed returns the test that failed, if one did.
func (r TestResult) Failed() (TestStatus, bool) {
	for _, t := range r.Tests {
		if t.Phase == TestFailed {
			return t, true
		}
	}
	return TestStatus{}, false
}

// Test runs one pass of the test run opts.Run over the tests among objects
// (those annotated <name>/test-hook; Apply never applies them), as helm
// test runs a release's test hooks: one at a time, in apply-order, then name
// order, each created anew (the object of an earlier run is deleted first),
// and waited for until it passes (Ready; a Job Complete, a Pod Succeeded) or
// fails. The run stops at the first failed test; the tests after it do not
// run. Once the run is over, the tests whose test-hook policy says so are
// deleted, and so are the objects of tests that left the render. Like
// Apply, it makes one pass: call it again, with the same run, until Done,
// and record that the run is over, for a later call with the same run would
// start again the tests whose objects it deleted. A test deleted before a
// pass saw it finish is judged by the state it was deleted in, which the
// cache of a NewCachedTarget keeps; on another Target it has failed.
func (a *Applier) Test(ctx context.Context, owner Owner, objects []client.Object, inventory []manifests.InventoryItem, opts TestOptions) (TestResult, error) {
	failed := TestResult{Result: Result{Inventory: inventory}}
	if opts.Run == "" || opts.Save == nil {
		return failed, errors.New("a test run needs TestOptions.Run and TestOptions.Save")
	}
	t := &testRun{pass: newPass(a.scopeFor(owner), inventory), opts: opts}
	if err := t.schedule(ctx, objects); err != nil {
		return failed, err
	}
	return t.run(ctx)
}

// schedule validates the tests among objects, sorts them and records the
// new ones in the inventory before any is created.
func (t *testRun) schedule(ctx context.Context, objects []client.Object) error {
	_, tests, err := t.s.prepareFor(forTests(t.opts.Run), objects, false)
	if err != nil {
		return err
	}
	for _, d := range tests {
		d.Policies.Update = manifests.UpdateRecreate // each run creates its tests anew
		d.Policies.PurgeOrder = nil
	}
	sortForTests(tests)
	t.tests = tests
	t.status = make([]TestStatus, len(tests))
	for i, d := range tests {
		t.status[i] = TestStatus{Object: d.Key, Phase: TestPending}
	}
	if t.pass.schedule(tests) {
		if err := t.opts.Save(ctx, t.inventory()); err != nil {
			return fmt.Errorf("recording tests before creating them: %w", err)
		}
	}
	return nil
}

// sortForTests orders tests as helm test does: by apply-order (the hook
// weight), then name, then kind stage and key.
func sortForTests(tests []*plan.Desired) {
	slices.SortStableFunc(tests, func(a, b *plan.Desired) int {
		if a.Policies.ApplyOrder != b.Policies.ApplyOrder {
			return int(a.Policies.ApplyOrder) - int(b.Policies.ApplyOrder)
		}
		if a.Key.Name != b.Key.Name {
			if a.Key.Name < b.Key.Name {
				return -1
			}
			return 1
		}
		if a.Stage != b.Stage {
			return int(a.Stage) - int(b.Stage)
		}
		return kinds.CompareKeys(a.Key, b.Key)
	})
}

// run runs the tests in order until one is not over, or one failed, and
// then deletes what the run deletes.
func (t *testRun) run(ctx context.Context) (TestResult, error) {
	last := len(t.tests) - 1
	for i, d := range t.tests {
		st, err := t.runTestTraced(ctx, d)
		if err != nil {
			return t.result(Stop{Step: GroupTest, Wave: d.Policies.ApplyOrder}), err
		}
		t.status[i] = st
		if st.Phase == TestRunning {
			return t.result(Stop{Step: GroupTest, Wave: d.Policies.ApplyOrder}), nil
		}
		if st.Phase == TestFailed {
			last = i
			break
		}
	}
	done, err := t.cleanUp(ctx, last)
	if err != nil || !done {
		return t.result(Stop{Step: GroupTest}), err
	}
	t.dropDeleted()
	return t.result(Stop{}), nil
}

func (t *testRun) result(stop Stop) TestResult {
	return TestResult{Result: t.pass.result(stop), Tests: slices.Clone(t.status)}
}

// runTest takes one test a step further: its outcome as recorded in this
// run, else what its live object says, else it creates it.
func (t *testRun) runTest(ctx context.Context, d *plan.Desired) (TestStatus, error) {
	item := t.item(d.Key)
	if st, ok := recordedOutcome(d, item); ok {
		return st, nil
	}
	live, err := t.s.a.live.Get(ctx, d.GVK, d.Key)
	if err != nil {
		return TestStatus{}, api.StepError(ActionRunTest, d.Key, err)
	}
	if item.Digest != d.Digest && t.s.ownership().CreatedFrom(live) != d.Digest {
		return t.start(ctx, d, item, live)
	}
	return t.observe(ctx, d, item, live), nil
}

// runTestTraced is runTest in a span of its own, which ends with the
// test's phase; a failed test's span is an error with its message.
func (t *testRun) runTestTraced(ctx context.Context, d *plan.Desired) (TestStatus, error) {
	ctx, span := startSpan(ctx, "test")
	st, err := t.runTest(ctx, d)
	if !span.IsRecording() {
		return st, err
	}
	objectAttributes(span, d.GVK.Kind, d.Key)
	span.SetAttributes(attrPhase.String(string(st.Phase)))
	if st.Phase == TestFailed {
		span.SetStatus(codes.Error, st.Message)
	}
	spans.End(span, err)
	return st, err
}

// recordedOutcome is a test's outcome in this run as its inventory item
// records it: Ready passed, Error failed, Completed (deleted by the run)
// either, as Status says.
func recordedOutcome(d *plan.Desired, item *manifests.InventoryItem) (TestStatus, bool) {
	if item.Digest != d.Digest {
		return TestStatus{}, false
	}
	st := TestStatus{Object: d.Key}
	switch {
	case item.Phase == manifests.PhaseReady || (item.Phase == manifests.PhaseCompleted && item.Status == ""):
		st.Phase = TestPassed
	case item.Phase == manifests.PhaseError || item.Phase == manifests.PhaseCompleted:
		st.Phase, st.Message = TestFailed, item.Status
	default:
		return TestStatus{}, false
	}
	return st, true
}
