package attempts

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Policy decides the course of a component's attempts at its renders and
// records it in the status: which attempt a render is, how a try ended,
// when the next one is due, whether to roll back, what the history says.
// Its methods take the status and the pass's inputs and do no I/O; now is
// given, not read. The pass does what they decide.
type Policy struct {
	Remediation *api.Remediation // nil for none
	Retry       time.Duration    // the retry interval: between tries
	Requeue     time.Duration    // the requeue interval: after a rollback
	Now         metav1.Time
}

// Begin returns the attempt at the render of digest: the one under way, or
// a new one for a new generation, render or reconcile request. A failed try
// whose retry is due starts again, with a timeout of its own.
func (a Policy) Begin(status *api.Status, generation int64, digest, request string) *api.Attempt {
	att := status.Attempt
	switch {
	case !sameRender(att, generation, digest, request):
		att = &api.Attempt{Generation: generation, RenderDigest: digest, ReconcileRequest: request, Started: a.Now}
		status.Attempt = att
	case retryDue(att, a.Now.Time, a.Remediation, a.Retry):
		att.Result, att.Started, att.Finished, att.Message, att.Tests = "", a.Now, nil, "", nil
	}
	return att
}

// Settle records how a try at the render ended, the pass's outcome out
// (source is where its render came from), and returns the Reconcile's
// outcome: a failure is counted once per try and, once the retries are
// used up, remediated: a rollback is decided here and applied by the next
// Reconcile, at once.
func (a Policy) Settle(status *api.Status, source *manifests.SourceInfo, out outcome.Outcome) outcome.Outcome {
	// The status as the last write returned it: the attempt of begin,
	// unless a CRD without the field pruned it.
	att := status.Attempt
	switch {
	case att == nil:
		return out
	case out.Reason == api.ReasonReady:
		if att.Result != api.ResultReady {
			att.Result, att.Finished, att.Message = api.ResultReady, &a.Now, ""
			addHistory(status, a.historyEntry(att, source, api.ResultReady, out.Message))
		}
		return out
	case !out.FailedAttempt:
		return out
	}
	if att.Result == "" {
		att.Failures++
		att.Result, att.Finished, att.Message = api.ResultFailed, &a.Now, out.Message
		addHistory(status, a.historyEntry(att, source, api.ResultFailed, out.Message))
	}
	if att.Failures <= retries(a.Remediation) {
		out.Message += "; " + retriesLeft(att, a.Remediation, a.Retry)
		out.Requeue, out.Stalled, out.Err = max(att.Finished.Add(a.Retry).Sub(a.Now.Time), 0), false, nil
		return out
	}
	if !rollsBack(a.Remediation) {
		return out
	}
	good := status.LastGoodRender
	if good == nil || good.RenderDigest == att.RenderDigest {
		out.Message += "; no earlier Ready render is kept to roll back to"
		return out
	}
	att.Result = api.ResultRolledBack
	out.Message += fmt.Sprintf("; rolling back to the render of generation %d%s", good.Generation, RevisionOf(good))
	out.Requeue, out.Stalled, out.Err = outcome.NextPassNow, false, nil
	return out
}

// RollBackOnRequest marks a new attempt rolled back when the reconcile
// request that began it also asks for a rollback (rollback is the value
// of <operator>/rollback-requested-at) and an earlier Ready render is
// kept; the pass then applies the kept render as a remediation's rollback.
func (a Policy) RollBackOnRequest(status *api.Status, att *api.Attempt, rollback string) bool {
	if rollback == "" || att.Result != "" || att.ReconcileRequest != rollback {
		return false
	}
	good := status.LastGoodRender
	if good == nil || good.RenderDigest == att.RenderDigest {
		return false
	}
	att.Result, att.Finished, att.Message = api.ResultRolledBack, &a.Now, "a rollback was requested"
	return true
}

// KeepsRender tells whether a Ready render of digest is to be kept for a
// rollback: the strategy is Rollback and it is not the one kept already.
func (a Policy) KeepsRender(status *api.Status, digest string) bool {
	if a.Remediation == nil || a.Remediation.Strategy != api.RemediateRollback {
		return false
	}
	good := status.LastGoodRender
	return good == nil || good.RenderDigest != digest
}

// CannotRollBack is the outcome of a rollback with no Ready render kept any
// more: the failure stays.
func (a Policy) CannotRollBack(att *api.Attempt) outcome.Outcome {
	att.Result = api.ResultFailed
	return outcome.Outcome{Reason: api.ReasonError, Message: att.Message + "; no earlier Ready render is kept to roll back to", Requeue: a.Retry, Stalled: true}
}

// RolledBack records a rollback to the kept render good, applied and ready,
// and returns its outcome: RolledBack, Stalled (only a change helps), the
// rollback kept applied until the generation, the render or a reconcile
// request changes.
func (a Policy) RolledBack(status *api.Status, att *api.Attempt, good *api.StoredRender) outcome.Outcome {
	status.Source = good.Source
	message := fmt.Sprintf("rolled back to the render of generation %d%s after %s of generation %d failed: %s",
		good.Generation, RevisionOf(good), tries(att.Failures), att.Generation, att.Message)
	if att.Failures == 0 {
		message = fmt.Sprintf("rolled back to the render of generation %d%s from generation %d: %s",
			good.Generation, RevisionOf(good), att.Generation, att.Message)
	}
	entry := a.historyEntry(att, good.Source, api.ResultRolledBack, message)
	entry.RenderDigest, entry.Started = good.RenderDigest, *att.Finished
	if last := lastHistory(status); last == nil || !sameOutcome(*last, entry) {
		addHistory(status, entry) // once: a pass that keeps the rollback in sync writes nothing
	}
	return outcome.Outcome{Reason: api.ReasonRolledBack, Message: message, Requeue: a.Requeue, Stalled: true}
}

// historyEntry is the history's record of a try of att that ended now.
// It names the source without its chart dependencies, which only
// status.source lists, so that the history stays small.
func (a Policy) historyEntry(att *api.Attempt, source *manifests.SourceInfo, result, message string) api.HistoryEntry {
	recorded := source.DeepCopy()
	if recorded != nil {
		recorded.Dependencies = nil
	}
	return api.HistoryEntry{Generation: att.Generation, Source: recorded, RenderDigest: att.RenderDigest,
		Started: att.Started, Finished: a.Now, Result: result, Message: message}
}

// IsFailure tells whether an error of the apply fails the attempt: an
// object failed, or the API server refused what the render asks for. An
// error in reaching the cluster does not: it is retried as it always was.
func IsFailure(err error) bool {
	var objErr *engine.ObjectError
	return engine.NeedsChange(err) || (errors.As(err, &objErr) && objErr.Action == engine.ActionReady)
}

// RevisionOf names a kept render's source revision for a message.
func RevisionOf(r *api.StoredRender) string {
	if r.Source == nil || r.Source.Revision == "" {
		return ""
	}
	return " (" + r.Source.Revision + ")"
}

// tries says "1 try" or "N tries".
func tries(n int32) string {
	if n == 1 {
		return "1 try"
	}
	return fmt.Sprintf("%d tries", n)
}

// ClockStart returns when the attempt's current try began, for its
// timeout: a try under way, or the rollback since the failure; false when
// the attempt has no try running.
func ClockStart(a *api.Attempt) (time.Time, bool) {
	switch {
	case a == nil:
		return time.Time{}, false
	case a.Result == "":
		return a.Started.Time, true
	case a.Result == api.ResultRolledBack && a.Finished != nil:
		return a.Finished.Time, true
	}
	return time.Time{}, false
}

// sameRender tells whether the attempt is at this generation, render and
// reconcile request.
func sameRender(a *api.Attempt, generation int64, digest, request string) bool {
	return a != nil && a.Generation == generation && a.RenderDigest == digest && a.ReconcileRequest == request
}

// retryDue tells whether a failed try may be followed by the next one.
func retryDue(a *api.Attempt, now time.Time, remediation *api.Remediation, interval time.Duration) bool {
	return a.Result == api.ResultFailed && a.Failures <= retries(remediation) &&
		a.Finished != nil && !now.Before(a.Finished.Add(interval))
}

// retriesLeft says, for a message, how the next try goes.
func retriesLeft(a *api.Attempt, remediation *api.Remediation, interval time.Duration) string {
	return fmt.Sprintf("try %d of %d failed, trying again in %s", a.Failures, retries(remediation)+1, interval)
}

// TestsRunning tells whether the attempt's try has a test run under way.
func TestsRunning(a *api.Attempt) bool {
	return a != nil && a.Result == "" && a.Tests != nil && a.Tests.Result == ""
}

// rollsBack tells whether the strategy rolls back once the retries are used up.
func rollsBack(r *api.Remediation) bool {
	return r != nil && r.Strategy == api.RemediateRollback && (r.RemediateLastFailure == nil || *r.RemediateLastFailure)
}

// retries returns how many times a failed attempt is tried again.
func retries(r *api.Remediation) int32 {
	if r == nil {
		return 0
	}
	return r.Retries
}
