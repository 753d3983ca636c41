package component

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/passtrace"
)

// finish records the outcome in the status, writes it if it changed and
// emits an event when the outcome is new; retry is the component's retry
// interval. A status the API server refuses is reported in its stead
// (finishTooLarge, finishRejected), with an event of its own.
func (sr *statusRecorder) finish(ctx context.Context, o outcome.Outcome, retry time.Duration) (ctrl.Result, error) {
	if o.Gone {
		return ctrl.Result{}, nil
	}
	sr.logOutcome(ctx, o)
	// The outcome is written even when the reconcile ran out of its time: a
	// fresh context, bounded on its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusWriteTimeout)
	defer cancel()
	before := sr.saidBefore()
	err := sr.writeOutcome(ctx, o)
	sr.r.gauge.observe(sr.id.String(), sr.component.GetStatus())
	var tooLarge *outcome.TooLargeError
	var rejected *outcome.RejectedStatusError
	switch {
	case errors.As(err, &tooLarge):
		return sr.finishTooLarge(ctx, err)
	case errors.As(err, &rejected):
		return sr.finishRejected(ctx, err, retry)
	case apierrors.IsConflict(err):
		// Someone changed the component since it was read: start over.
		return ctrl.Result{RequeueAfter: time.Second}, nil
	case apierrors.IsNotFound(err):
		// Deleted meanwhile (a stale read of a component whose deletion
		// just finished): there is nothing left to report on.
		sr.r.forget(sr.id)
		return ctrl.Result{}, nil
	}
	if sr.r.note(sr.component, o, sr.writes > 0 || sr.wroteAhead, passtrace.TraceID(ctx)) && o.Reason == ReasonWriteLoop {
		log.FromContext(ctx).Info("stopped writing an object that is changed back after every write", "message", o.Message)
	}
	if err == nil {
		sr.notifyOutcome(ctx, before, o)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: o.Requeue}, o.Err
}

// writeOutcome records the outcome in the status and writes it, unless the
// Reconcile wrote the status ahead of its pass: a Reconcile writes the
// status once, and the next one, at once, runs the pass and reports it.
func (sr *statusRecorder) writeOutcome(ctx context.Context, o outcome.Outcome) error {
	if sr.wroteAhead {
		return nil
	}
	conditions.SetReady(sr.component.GetStatus(), sr.component.GetGeneration(), o.Reason, o.Message, o.Stalled)
	sr.recordReconcileRequest()
	return sr.writeStatus(ctx)
}

// finishTooLarge reports a status too large to store. It keeps the inventory
// as last stored, which already records every object the pass may have
// created, since new items are stored before their objects are created.
func (sr *statusRecorder) finishTooLarge(ctx context.Context, tooLarge error) (ctrl.Result, error) {
	status := sr.component.GetStatus()
	status.Inventory = sr.written.Inventory
	conditions.SetReady(status, sr.component.GetGeneration(), ReasonError, tooLarge.Error(), true)
	sr.r.gauge.observe(sr.id.String(), status)
	o := outcome.Outcome{Reason: ReasonError, Message: tooLarge.Error(), Stalled: true}
	sr.r.note(sr.component, o, false, passtrace.TraceID(ctx))
	before := sr.saidBefore()
	if err := sr.writeStatus(ctx); err != nil && !apierrors.IsConflict(err) {
		return ctrl.Result{}, err
	}
	sr.notifyOutcome(ctx, before, o)
	return ctrl.Result{}, tooLarge
}

// finishRejected reports an outcome whose status the API server rejected.
// The outcome is then stored with the inventory as last stored, as
// finishTooLarge does: the CRD accepted it, and it already records every
// object created, since new items are stored before their objects are
// created. So the component shows why it is stuck.
func (sr *statusRecorder) finishRejected(ctx context.Context, rejected error, retry time.Duration) (ctrl.Result, error) {
	o := outcome.Failure(rejected, retry, &sr.written)
	status := sr.component.GetStatus()
	status.Inventory = sr.written.Inventory
	conditions.SetReady(status, sr.component.GetGeneration(), o.Reason, o.Message, o.Stalled)
	sr.r.gauge.observe(sr.id.String(), status)
	sr.r.note(sr.component, o, false, passtrace.TraceID(ctx))
	before := sr.saidBefore()
	if err := sr.writeStatus(ctx); err != nil && !apierrors.IsConflict(err) {
		return ctrl.Result{}, err
	}
	sr.notifyOutcome(ctx, before, o)
	return ctrl.Result{RequeueAfter: o.Requeue}, nil
}

// logOutcome logs one line at info level for a reconcile that wrote or
// deleted objects or failed: the component, its revision, the objects
// written and how long it took. A reconcile that changed nothing logs at
// debug level only.
func (sr *statusRecorder) logOutcome(ctx context.Context, o outcome.Outcome) {
	logger := log.FromContext(ctx)
	if sr.writes == 0 && !o.Warns() {
		logger = logger.V(1)
	}
	logger.Info("reconciled", "component", sr.id.String(), "revision", sr.component.GetGeneration(),
		"objectsWritten", sr.writes, "duration", time.Since(sr.start).Round(time.Millisecond).String(),
		"reason", o.Reason, "message", o.Message, "requeue", o.Requeue)
}

// continues tells whether the Reconcile that ended with o left work for the
// next one: a wave waiting, deletion under way, or new inventory items
// written ahead of their objects. The next one's span links to this one's.
func (sr *statusRecorder) continues(o *outcome.Outcome) bool {
	if o == nil || o.Gone {
		return false
	}
	return sr.wroteAhead || o.Reason == ReasonProcessing || o.Reason == ReasonDeleting
}
