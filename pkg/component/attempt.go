package component

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// attempts decides the course of a component's attempts at its renders and
// records it in the status: which attempt a render is, how a try ended,
// when the next one is due, whether to roll back, what the history says.
// Its methods take the status and the pass's inputs and do no I/O; now is
// given, not read. The pass does what they decide (attemptpass.go).
type attempts struct {
	remediation *Remediation  // nil for none
	retry       time.Duration // the retry interval: between tries
	requeue     time.Duration // the requeue interval: after a rollback
	now         metav1.Time
}

// begin returns the attempt at the render of digest: the one under way, or
// a new one for a new generation, render or reconcile request. A failed try
// whose retry is due starts again, with a timeout of its own.
func (a attempts) begin(status *Status, generation int64, digest, request string) *Attempt {
	att := status.Attempt
	switch {
	case !sameRender(att, generation, digest, request):
		att = &Attempt{Generation: generation, RenderDigest: digest, ReconcileRequest: request, Started: a.now}
		status.Attempt = att
	case retryDue(att, a.now.Time, a.remediation, a.retry):
		att.Result, att.Started, att.Finished, att.Message, att.Tests = "", a.now, nil, "", nil
	}
	return att
}

// settle records how a try at the render ended, the pass's outcome out
// (source is where its render came from), and returns the Reconcile's
// outcome: a failure is counted once per try and, once the retries are
// used up, remediated: a rollback is decided here and applied by the next
// Reconcile, at once.
func (a attempts) settle(status *Status, source *manifests.SourceInfo, out outcome.Outcome) outcome.Outcome {
	// The status as the last write returned it: the attempt of begin,
	// unless a CRD without the field pruned it.
	att := status.Attempt
	switch {
	case att == nil:
		return out
	case out.Reason == ReasonReady:
		if att.Result != ResultReady {
			att.Result, att.Finished, att.Message = ResultReady, &a.now, ""
			addHistory(status, a.historyEntry(att, source, ResultReady, out.Message))
		}
		return out
	case !out.FailedAttempt:
		return out
	}
	if att.Result == "" {
		att.Failures++
		att.Result, att.Finished, att.Message = ResultFailed, &a.now, out.Message
		addHistory(status, a.historyEntry(att, source, ResultFailed, out.Message))
	}
	if att.Failures <= retries(a.remediation) {
		out.Message += "; " + retriesLeft(att, a.remediation, a.retry)
		out.Requeue, out.Stalled, out.Err = max(att.Finished.Add(a.retry).Sub(a.now.Time), 0), false, nil
		return out
	}
	if !rollsBack(a.remediation) {
		return out
	}
	good := status.LastGoodRender
	if good == nil || good.RenderDigest == att.RenderDigest {
		out.Message += "; no earlier Ready render is kept to roll back to"
		return out
	}
	att.Result = ResultRolledBack
	out.Message += fmt.Sprintf("; rolling back to the render of generation %d%s", good.Generation, revisionOf(good))
	out.Requeue, out.Stalled, out.Err = outcome.NextPassNow, false, nil
	return out
}

// keepsRender tells whether a Ready render of digest is to be kept for a
// rollback: the strategy is Rollback and it is not the one kept already.
func (a attempts) keepsRender(status *Status, digest string) bool {
	if a.remediation == nil || a.remediation.Strategy != RemediateRollback {
		return false
	}
	good := status.LastGoodRender
	return good == nil || good.RenderDigest != digest
}

// cannotRollBack is the outcome of a rollback with no Ready render kept any
// more: the failure stays.
func (a attempts) cannotRollBack(att *Attempt) outcome.Outcome {
	att.Result = ResultFailed
	return outcome.Outcome{Reason: ReasonError, Message: att.Message + "; no earlier Ready render is kept to roll back to", Requeue: a.retry, Stalled: true}
}

// rolledBack records a rollback to the kept render good, applied and ready,
// and returns its outcome: RolledBack, Stalled (only a change helps), the
// rollback kept applied until the generation, the render or a reconcile
// request changes.
func (a attempts) rolledBack(status *Status, att *Attempt, good *StoredRender) outcome.Outcome {
	status.Source = good.Source
	message := fmt.Sprintf("rolled back to the render of generation %d%s after %s of generation %d failed: %s",
		good.Generation, revisionOf(good), tries(att.Failures), att.Generation, att.Message)
	entry := a.historyEntry(att, good.Source, ResultRolledBack, message)
	entry.RenderDigest, entry.Started = good.RenderDigest, *att.Finished
	if last := lastHistory(status); last == nil || !sameOutcome(*last, entry) {
		addHistory(status, entry) // once: a pass that keeps the rollback in sync writes nothing
	}
	return outcome.Outcome{Reason: ReasonRolledBack, Message: message, Requeue: a.requeue, Stalled: true}
}

// historyEntry is the history's record of a try of att that ended now.
func (a attempts) historyEntry(att *Attempt, source *manifests.SourceInfo, result, message string) HistoryEntry {
	return HistoryEntry{Generation: att.Generation, Source: source.DeepCopy(), RenderDigest: att.RenderDigest,
		Started: att.Started, Finished: a.now, Result: result, Message: message}
}

// isAttemptFailure tells whether an error of the apply fails the attempt: an
// object failed, or the API server refused what the render asks for. An
// error in reaching the cluster does not: it is retried as it always was.
func isAttemptFailure(err error) bool {
	var objErr *engine.ObjectError
	return engine.NeedsChange(err) || (errors.As(err, &objErr) && objErr.Action == engine.ActionReady)
}

// revisionOf names a kept render's source revision for a message.
func revisionOf(r *StoredRender) string {
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

// clockStart returns when the attempt's current try began, for its
// timeout: a try under way, or the rollback since the failure; false when
// the attempt has no try running.
func clockStart(a *Attempt) (time.Time, bool) {
	switch {
	case a == nil:
		return time.Time{}, false
	case a.Result == "":
		return a.Started.Time, true
	case a.Result == ResultRolledBack && a.Finished != nil:
		return a.Finished.Time, true
	}
	return time.Time{}, false
}

// sameRender tells whether the attempt is at this generation, render and
// reconcile request.
func sameRender(a *Attempt, generation int64, digest, request string) bool {
	return a != nil && a.Generation == generation && a.RenderDigest == digest && a.ReconcileRequest == request
}

// retryDue tells whether a failed try may be followed by the next one.
func retryDue(a *Attempt, now time.Time, remediation *Remediation, interval time.Duration) bool {
	return a.Result == ResultFailed && a.Failures <= retries(remediation) &&
		a.Finished != nil && !now.Before(a.Finished.Add(interval))
}

// retriesLeft says, for a message, how the next try goes.
func retriesLeft(a *Attempt, remediation *Remediation, interval time.Duration) string {
	return fmt.Sprintf("try %d of %d failed, trying again in %s", a.Failures, retries(remediation)+1, interval)
}

// testsRunning tells whether the attempt's try has a test run under way.
func testsRunning(a *Attempt) bool {
	return a != nil && a.Result == "" && a.Tests != nil && a.Tests.Result == ""
}

// rollsBack tells whether the strategy rolls back once the retries are used up.
func rollsBack(r *Remediation) bool {
	return r != nil && r.Strategy == RemediateRollback && (r.RemediateLastFailure == nil || *r.RemediateLastFailure)
}

// retries returns how many times a failed attempt is tried again.
func retries(r *Remediation) int32 {
	if r == nil {
		return 0
	}
	return r.Retries
}

// historyMessageLimit bounds a history entry's message, so that ten of them
// never crowd the status.
const historyMessageLimit = 1024

// addHistory records an attempt's end. An entry of the same outcome as the
// newest one (generation, render, source and result: another failed try of
// one render) is merged into it, taking its message and finished time; the
// oldest entries go past HistoryLimit.
func addHistory(s *Status, entry HistoryEntry) {
	entry.Message = bound.Message(entry.Message, historyMessageLimit)
	if last := lastHistory(s); last != nil && sameOutcome(*last, entry) {
		last.Message, last.Finished = entry.Message, entry.Finished
		return
	}
	s.History = append(s.History, entry)
	if extra := len(s.History) - HistoryLimit; extra > 0 {
		s.History = append([]HistoryEntry(nil), s.History[extra:]...)
	}
}

// lastHistory returns the newest entry, or nil.
func lastHistory(s *Status) *HistoryEntry {
	if len(s.History) == 0 {
		return nil
	}
	return &s.History[len(s.History)-1]
}

// sameOutcome tells whether two entries record the same outcome of the
// same render.
func sameOutcome(e, o HistoryEntry) bool {
	return e.Generation == o.Generation && e.RenderDigest == o.RenderDigest && e.Result == o.Result && sameSource(e.Source, o.Source)
}

func sameSource(a, b *manifests.SourceInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
