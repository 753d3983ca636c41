package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestOptions tune Test.
type TestOptions struct {
	// Run names the test run; required. Each run creates its tests anew,
	// once: a test this run created is never created again, not even when
	// its object is gone (its outcome is then what was seen of it), while a
	// test whose inventory item records another run is run again.
	Run string
	// Deadline, if set, is when the run's time is up: a test still running
	// then has failed.
	Deadline time.Time
	// Save records tests in the inventory before they are created, as
	// Apply's SaveFunc; required.
	Save SaveFunc
	// Observed, if set, is called with each test whose outcome a pass sees,
	// before a delete policy removes its object: the CLI reads the logs of
	// a failed test's pods there.
	Observed func(ctx context.Context, test TestStatus)
}

// TestPhase is where one test stands in a run.
type TestPhase string

// Phases of a test in a run.
const (
	// TestPending: not run yet in this run (a test before it runs or
	// failed).
	TestPending TestPhase = "Pending"
	// TestRunning: created, neither passed nor failed yet.
	TestRunning TestPhase = "Running"
	// TestPassed: its object became ready (a Job Complete, a Pod Succeeded).
	TestPassed TestPhase = "Passed"
	// TestFailed: its object failed (a Job Failed, a Pod Failed), was
	// deleted before it finished, or did not finish by the deadline.
	TestFailed TestPhase = "Failed"
)

// TestStatus is how one test stands in a run.
type TestStatus struct {
	Object manifests.ObjectKey
	Phase  TestPhase
	// Message says why a test failed or what a running one waits for.
	Message string
}

// String words the test's state: "Job ns/t failed: BackoffLimitExceeded: …".
func (t TestStatus) String() string {
	switch t.Phase {
	case TestFailed:
		return t.Object.String() + " failed: " + t.Message
	case TestRunning:
		return t.Object.String() + " is running: " + t.Message
	case TestPassed:
		return t.Object.String() + " passed"
	}
	return t.Object.String() + " did not run"
}

// testRun is one pass of a test run.
type testRun struct {
	*pass
	opts   TestOptions
	tests  []*plan.Desired
	status []TestStatus
}

// start creates a test that this run has not created yet; the object of an
// earlier run goes first.
func (t *testRun) start(ctx context.Context, d *plan.Desired, item *manifests.InventoryItem, live *unstructured.Unstructured) (TestStatus, error) {
	running := TestStatus{Object: d.Key, Phase: TestRunning}
	if live != nil {
		gone, err := t.deleteEarlier(ctx, d, item, live)
		if err != nil || !gone {
			running.Message = "deleting the object of an earlier run"
			return running, err
		}
	}
	out, err := t.s.write(ctx, d, nil)
	if err != nil {
		return TestStatus{}, api.StepError(ActionRunTest, d.Key, err)
	}
	if out.live == nil {
		// It existed unknown to the cache, and was deleted to be created anew.
		running.Message = "deleting the object of an earlier run"
		return running, t.settle([]plan.Outcome{{Key: d.Key, Changed: true, Waiting: "test " + running.Message}})
	}
	created := plan.Outcome{Key: d.Key, Action: ActionCreate, Changed: true, Written: true, Digest: d.Digest,
		Phase: manifests.PhaseCreating, SetStatus: true}
	if err := t.settle([]plan.Outcome{created}); err != nil {
		return TestStatus{}, err
	}
	return t.observe(ctx, d, t.item(d.Key), out.live), nil
}

// deleteEarlier deletes the object an earlier run left, if this owner may
// (it is its own, or the adoption policy lets it take it), and reports
// whether it is gone.
func (t *testRun) deleteEarlier(ctx context.Context, d *plan.Desired, item *manifests.InventoryItem, live *unstructured.Unstructured) (bool, error) {
	if err := plan.TakenOver(t.s.ownership(), d, item, live); err != nil {
		return false, err
	}
	if err := plan.AdoptionRefused(t.s.ownership(), d, live); err != nil {
		return false, err
	}
	if live.GetDeletionTimestamp() != nil {
		return false, t.settle([]plan.Outcome{{Key: d.Key, Waiting: "test: the object of an earlier run is being deleted"}})
	}
	gone, err := t.s.deleteRecorded(ctx, d.Key, live, d.Policies.ReplacePropagation)
	if err != nil {
		return false, api.StepError(ActionRunTest, d.Key, fmt.Errorf("deleting the object of an earlier run: %w", err))
	}
	o := plan.Outcome{Key: d.Key, Action: ActionDelete, Detail: "created anew by this test run", Changed: true}
	if !gone {
		o.Waiting = "test: the object of an earlier run is being deleted"
	}
	return gone, t.settle([]plan.Outcome{o})
}

// observe judges a test this run created by its live object or, once it is
// gone, by the state it was deleted in, and records the outcome.
func (t *testRun) observe(ctx context.Context, d *plan.Desired, item *manifests.InventoryItem, live *unstructured.Unstructured) TestStatus {
	var phase TestPhase
	var message string
	switch {
	case live == nil:
		phase, message = t.judgeGone(d)
	default:
		phase, message = t.s.judgeTest(live, d.Policies.StatusHint)
		if phase == TestRunning && live.GetDeletionTimestamp() != nil {
			phase, message = TestFailed, "deleted before it finished ("+message+")"
		}
	}
	if phase == TestRunning && !t.opts.Deadline.IsZero() && !t.s.a.opts.Now().Before(t.opts.Deadline) {
		phase, message = TestFailed, "did not finish in time ("+message+")"
	}
	o := plan.Outcome{Key: d.Key, SetStatus: true}
	if item.Digest != d.Digest {
		o.Written, o.Digest = true, d.Digest // created by a pass whose record was lost
	}
	switch phase {
	case TestPassed:
		o.Phase = manifests.PhaseReady
	case TestFailed:
		o.Phase, o.Status = manifests.PhaseError, message
	default:
		o.Phase, o.Status, o.Waiting = manifests.PhaseCreating, message, "test running: "+message
	}
	_ = t.settle([]plan.Outcome{o})
	st := TestStatus{Object: d.Key, Phase: phase, Message: message}
	if phase != TestRunning && t.opts.Observed != nil {
		t.opts.Observed(ctx, st)
	}
	return st
}

// judgeGone judges a test whose object is gone by the state it was deleted
// in, if the target's cache saw it go (internal/runonce). It is never created
// again in this run: a gone test whose end nobody saw has failed.
func (t *testRun) judgeGone(d *plan.Desired) (TestPhase, string) {
	final := t.s.a.target.ends.LastSeen(d.Key)
	if final == nil || t.s.ownership().CreatedFrom(final) != d.Digest {
		return TestFailed, "its object is gone and was not seen to finish (deleted while wavekit was not watching); it is not run again in this run"
	}
	phase, message := t.s.judgeTest(final, d.Policies.StatusHint)
	if phase == TestRunning {
		return TestFailed, "deleted before it finished (" + message + ")"
	}
	return phase, message
}

// judgeTest tells whether a test's object passed, failed or still runs: a
// Pod by its phase, anything else as a wave judges it (the owner's health
// checks, else kstatus with wavekit's rules: a Job passes once Complete).
func (s *ownerScope) judgeTest(live *unstructured.Unstructured, hint manifests.StatusHint) (TestPhase, string) {
	if gvk := live.GroupVersionKind(); gvk.Group == "" && gvk.Kind == "Pod" {
		return podOutcome(live)
	}
	r, judged := s.health.Judge(live)
	if !judged {
		r = readiness.Compute(live, hint)
	}
	switch {
	case r.Ready():
		return TestPassed, ""
	case r.Failed():
		return TestFailed, r.Message
	}
	return TestRunning, strings.TrimSuffix(string(r.Status)+": "+r.Message, ": ")
}

// podOutcome judges a test Pod: it passed once Succeeded and failed once
// Failed, as helm test judges it; a Running Pod is still running, ready or
// not.
func podOutcome(pod *unstructured.Unstructured) (TestPhase, string) {
	phase, _, _ := unstructured.NestedString(pod.Object, "status", "phase")
	switch phase {
	case "Succeeded":
		return TestPassed, ""
	case "Failed":
		return TestFailed, podFailure(pod)
	case "":
		phase = "Pending"
	}
	return TestRunning, "pod " + phase
}

// podFailure says why a Pod failed: its reason and message, else the first
// container that exited with an error.
func podFailure(pod *unstructured.Unstructured) string {
	reason, _, _ := unstructured.NestedString(pod.Object, "status", "reason")
	message, _, _ := unstructured.NestedString(pod.Object, "status", "message")
	if reason != "" || message != "" {
		return "pod failed: " + readiness.WithReason(reason, message)
	}
	statuses, _, _ := unstructured.NestedSlice(pod.Object, "status", "containerStatuses")
	for _, s := range statuses {
		container, _ := s.(map[string]any)
		name, _ := container["name"].(string)
		code, found, _ := unstructured.NestedInt64(container, "state", "terminated", "exitCode")
		if found && code != 0 {
			why, _, _ := unstructured.NestedString(container, "state", "terminated", "reason")
			return fmt.Sprintf("pod failed: container %s exited with code %d %s", name, code, why)
		}
	}
	return "pod failed"
}

// cleanUp deletes, once the run is over (last is the last test that ran),
// the tests whose policy deletes them after their outcome, and the objects
// of tests that left the render. It reports whether all of them are gone.
func (t *testRun) cleanUp(ctx context.Context, last int) (bool, error) {
	var items []*manifests.InventoryItem
	for i, d := range t.tests[:last+1] {
		if d.Policies.TestHook.DeletesAfter(t.status[i].Phase == TestPassed) {
			items = append(items, t.item(d.Key))
		}
	}
	items = append(items, t.leftTheRender()...)
	outs := make([]plan.Outcome, len(items))
	for i, item := range items {
		outs[i] = t.deleteTest(ctx, item)
	}
	if err := t.settle(outs); err != nil {
		return false, err
	}
	for _, o := range outs {
		if o.Waiting != "" {
			return false, nil
		}
	}
	return true, nil
}

// leftTheRender returns the test items of tests that are no longer rendered.
func (t *testRun) leftTheRender() []*manifests.InventoryItem {
	rendered := plan.ByKey(t.tests)
	var out []*manifests.InventoryItem
	for _, item := range t.list() {
		if item.TestHook != "" && rendered[item.Key()] == nil {
			out = append(out, item)
		}
	}
	return out
}

// deleteTest deletes the object of a test item; the outcome marks it
// Completed (the test's outcome stays in Status); dropDeleted drops it once
// the run is over.
func (t *testRun) deleteTest(ctx context.Context, item *manifests.InventoryItem) plan.Outcome {
	o := plan.Outcome{Key: item.Key()}
	rm, err := t.s.deleteObject(ctx, item)
	if err != nil {
		o.Err = api.StepError(ActionDelete, item.Key(), err)
		return o
	}
	o.Phase = manifests.PhaseCompleted
	if rm.requested {
		o.Action, o.Changed = ActionDelete, true
	}
	if !rm.gone {
		o.Waiting = beingDeleted("test being deleted after the run", rm.heldBy)
	}
	return o
}

// dropDeleted empties the inventory of the tests the run deleted, once the
// run is over.
func (t *testRun) dropDeleted() {
	var outs []plan.Outcome
	for _, item := range t.list() {
		if item.TestHook != "" && item.Phase == manifests.PhaseCompleted {
			outs = append(outs, plan.Outcome{Key: item.Key(), Drop: true})
		}
	}
	_ = t.settle(outs)
}
