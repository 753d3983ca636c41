package component

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// beginAttempt returns the attempt at this render: the one under way, or a
// new one for a new generation, render or reconcile request. A failed try
// whose retry is due starts again, with a timeout of its own.
func (p *pass[T]) beginAttempt(objects []client.Object) (*Attempt, keptRender, error) {
	render, err := encodeRender(objects)
	if err != nil {
		return nil, render, err
	}
	status := p.component.GetStatus()
	generation, request, now := p.component.GetGeneration(), p.requested(AnnotationReconcileRequestedAt), metav1.Now()
	att := status.Attempt
	switch {
	case !att.sameRender(generation, render.digest, request):
		att = &Attempt{Generation: generation, RenderDigest: render.digest, ReconcileRequest: request, Started: now}
		status.Attempt = att
	case att.retryDue(now.Time, p.settings.remediation, p.settings.retry):
		att.Result, att.Started, att.Finished, att.Message, att.Tests = "", now, nil, "", nil
	}
	return att, render, nil
}

// isAttemptFailure tells whether an error of the apply fails the attempt: an
// object failed, or the API server refused what the render asks for. An
// error in reaching the cluster does not: it is retried as it always was.
func isAttemptFailure(err error) bool {
	var objErr *engine.ObjectError
	return engine.NeedsChange(err) || (errors.As(err, &objErr) && objErr.Action == engine.ActionReady)
}

// settleAttempt records how a try at the render ended: Ready keeps the
// render for a rollback; a failure is counted once per try and, once the
// retries are used up, remediated: a rollback is decided here and applied
// by the next Reconcile, at once.
func (p *pass[T]) settleAttempt(ctx context.Context, render keptRender, out outcome) outcome {
	status := p.component.GetStatus()
	// The status as the last write returned it: the attempt of
	// beginAttempt, unless a CRD without the field pruned it.
	att := status.Attempt
	if att == nil {
		return out
	}
	now := metav1.Now()
	switch {
	case out.reason == ReasonReady:
		if att.Result != ResultReady {
			att.Result, att.Finished, att.Message = ResultReady, &now, ""
			status.addHistory(p.historyEntry(att, p.source, ResultReady, out.message))
		}
		if warning := p.keepRender(ctx, att, render); warning != "" {
			out.message += "; " + warning
		}
		return out
	case !out.failedAttempt:
		return out
	}
	if att.Result == "" {
		att.Failures++
		att.Result, att.Finished, att.Message = ResultFailed, &now, out.message
		status.addHistory(p.historyEntry(att, p.source, ResultFailed, out.message))
	}
	remediation := p.settings.remediation
	if att.Failures <= remediation.retries() {
		interval := p.settings.retry
		out.message += "; " + att.retriesLeft(remediation, interval)
		out.requeue, out.stalled, out.err = max(time.Until(att.Finished.Add(interval)), 0), false, nil
		return out
	}
	if !remediation.rollsBack() {
		return out
	}
	good := status.LastGoodRender
	if good == nil || good.RenderDigest == att.RenderDigest {
		out.message += "; no earlier Ready render is kept to roll back to"
		return out
	}
	att.Result = ResultRolledBack
	out.message += fmt.Sprintf("; rolling back to the render of generation %d%s", good.Generation, revisionOf(good))
	out.requeue, out.stalled, out.err = nextPassNow, false, nil
	return out
}

// rollback applies the last Ready render again in place of the attempt's,
// wave by wave as any render: what only the failed render had is pruned.
// Once it is applied and ready the component reports RolledBack, Stalled
// (only a change helps), and keeps the rollback applied until the
// generation, the render or a reconcile request changes.
func (p *pass[T]) rollback(ctx context.Context, tg *target, owner engine.Owner, att *Attempt) outcome {
	status := p.component.GetStatus()
	good := status.LastGoodRender
	if good == nil {
		att.Result = ResultFailed // nothing to roll back to any more: the failure stays
		return outcome{reason: ReasonError, message: att.Message + "; no earlier Ready render is kept to roll back to", requeue: p.settings.retry, stalled: true}
	}
	what := fmt.Sprintf("rolling back to the render of generation %d%s", good.Generation, revisionOf(good))
	objects, err := p.r.renders.load(ctx, p.id, good)
	if err != nil {
		return p.fail(fmt.Errorf("%s: %w", what, err))
	}
	res, newKinds, err := p.applyObjects(ctx, tg, owner, objects)
	if err != nil {
		return p.fail(fmt.Errorf("%s: %w", what, err))
	}
	if !res.Done {
		return p.waiting(fmt.Sprintf("%s: waiting for wave %d", what, res.Wave), res.Waiting).withNewKinds(newKinds, res)
	}
	status.Source = good.Source
	message := fmt.Sprintf("rolled back to the render of generation %d%s after %s of generation %d failed: %s",
		good.Generation, revisionOf(good), tries(att.Failures), att.Generation, att.Message)
	entry := p.historyEntry(att, good.Source, ResultRolledBack, message)
	entry.RenderDigest, entry.Started = good.RenderDigest, *att.Finished
	if last := status.lastHistory(); last == nil || !last.sameOutcome(entry) {
		status.addHistory(entry) // once: a pass that keeps the rollback in sync writes nothing
	}
	return outcome{reason: ReasonRolledBack, message: message, requeue: p.settings.requeue, stalled: true}
}

// keepRender keeps a Ready render for a rollback when the strategy is
// Rollback and it is not the one kept already. It returns what went wrong
// for the Ready message: the component stays Ready, with its older kept
// render (if any) as what a rollback applies.
func (p *pass[T]) keepRender(ctx context.Context, att *Attempt, render keptRender) string {
	status := p.component.GetStatus()
	remediation := p.settings.remediation
	if remediation == nil || remediation.Strategy != RemediateRollback {
		return ""
	}
	if good := status.LastGoodRender; good != nil && good.RenderDigest == render.digest {
		return ""
	}
	gvk, err := apiutil.GVKForObject(p.component, p.r.client.Scheme())
	if err != nil {
		return "the render is not kept for a rollback: " + err.Error()
	}
	name, err := p.r.renders.save(ctx, p.component, gvk, att.Generation, render)
	if err != nil {
		return "the render is not kept for a rollback: " + err.Error()
	}
	status.LastGoodRender = &StoredRender{Generation: att.Generation, RenderDigest: render.digest, Source: p.source.DeepCopy(), Secret: name}
	return ""
}

// historyEntry is the history's record of a try of att that ended now.
func (p *pass[T]) historyEntry(att *Attempt, source *manifests.SourceInfo, result, message string) HistoryEntry {
	return HistoryEntry{Generation: att.Generation, Source: source.DeepCopy(), RenderDigest: att.RenderDigest,
		Started: att.Started, Finished: metav1.Now(), Result: result, Message: message}
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
func (a *Attempt) clockStart() (time.Time, bool) {
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
