package report

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/passtrace"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Finish records the outcome in the status, writes it if it changed and
// emits an event when the outcome is new; retry is the component's retry
// interval. A status the API server refuses is reported in its stead
// (finishTooLarge, finishRejected), with an event of its own.
func (sr *Recorder) Finish(ctx context.Context, o outcome.Outcome, retry time.Duration) (ctrl.Result, error) {
	if o.Gone {
		return ctrl.Result{}, nil
	}
	if o.Interrupted {
		return sr.finishInterrupted(ctx, o)
	}
	sr.logOutcome(ctx, o)
	// The outcome is written even when the reconcile ran out of its time: a
	// fresh context, bounded on its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusWriteTimeout)
	defer cancel()
	before := sr.saidBefore()
	err := sr.writeOutcome(ctx, o)
	sr.Observe(sr.ID.String(), sr.Component.GetStatus())
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
		sr.Forget(sr.ID)
		return ctrl.Result{}, nil
	}
	if sr.Note(sr.Component, o, sr.Writes > 0 || sr.WroteAhead, passtrace.TraceID(ctx)) && o.Reason == api.ReasonWriteLoop {
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

// finishInterrupted writes what the interrupted pass recorded (its
// inventory), if anything, and not its outcome: the Ready condition, the
// handled reconcile request and the Events stay as they were.
func (sr *Recorder) finishInterrupted(ctx context.Context, o outcome.Outcome) (ctrl.Result, error) {
	log.FromContext(ctx).Info("pass cut short by the stop", "component", sr.ID.String(), "objectsWritten", sr.Writes,
		"duration", time.Since(sr.Start).Round(time.Millisecond).String(), "outcome", o.Message)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusWriteTimeout)
	defer cancel()
	if sr.WroteAhead {
		return ctrl.Result{}, nil
	}
	if err := sr.WriteStatus(ctx); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// writeOutcome records the outcome in the status and writes it, unless the
// Reconcile wrote the status ahead of its pass: a Reconcile writes the
// status once, and the next one, at once, runs the pass and reports it.
func (sr *Recorder) writeOutcome(ctx context.Context, o outcome.Outcome) error {
	if sr.WroteAhead {
		return nil
	}
	conditions.SetReady(sr.Component.GetStatus(), sr.Component.GetGeneration(), o.Reason, o.Message, o.Stalled)
	sr.recordReconcileRequest()
	return sr.WriteStatus(ctx)
}

// recordReconcileRequest records that this pass handled the reconcile
// request the component carries, whatever its outcome.
func (sr *Recorder) recordReconcileRequest() {
	key := manifests.Key(sr.Operator, api.AnnotationReconcileRequestedAt)
	if value := sr.Component.GetAnnotations()[key]; value != "" {
		sr.Component.GetStatus().LastHandledReconcileAt = value
	}
}

// WriteAhead records new inventory items before the applier creates them,
// as the Reconcile's one status write, and ends the pass
// (outcome.ErrWrittenAhead), so that a crash never leaves an object the
// inventory does not list. It returns nil when nothing was written.
func (sr *Recorder) WriteAhead(ctx context.Context, items []manifests.InventoryItem) error {
	if planted(plantSkipWriteAhead) {
		return nil // planted: the objects are created before the inventory lists them
	}
	status := sr.Component.GetStatus()
	status.Inventory = items
	if sr.Component.GetDeletionTimestamp() != nil {
		conditions.SetReady(status, sr.Component.GetGeneration(), api.ReasonDeleting, "running delete hooks", false)
	} else {
		conditions.SetReady(status, sr.Component.GetGeneration(), api.ReasonProcessing, "creating objects", false)
	}
	version := sr.Component.GetResourceVersion()
	if err := sr.WriteStatus(ctx); err != nil {
		return err
	}
	if sr.Component.GetResourceVersion() == version {
		// Nothing was written (a CRD that drops the inventory): ending the
		// pass would only start the same one again, at once, for ever.
		return nil
	}
	sr.WroteAhead = true
	return outcome.ErrWrittenAhead
}

// finishTooLarge reports a status too large to store. It keeps the inventory
// as last stored, which already records every object the pass may have
// created, since new items are stored before their objects are created.
func (sr *Recorder) finishTooLarge(ctx context.Context, tooLarge error) (ctrl.Result, error) {
	status := sr.Component.GetStatus()
	status.Inventory = sr.Written.Inventory
	conditions.SetReady(status, sr.Component.GetGeneration(), api.ReasonError, tooLarge.Error(), true)
	sr.Observe(sr.ID.String(), status)
	o := outcome.Outcome{Reason: api.ReasonError, Message: tooLarge.Error(), Stalled: true}
	sr.Note(sr.Component, o, false, passtrace.TraceID(ctx))
	before := sr.saidBefore()
	if err := sr.WriteStatus(ctx); err != nil && !apierrors.IsConflict(err) {
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
func (sr *Recorder) finishRejected(ctx context.Context, rejected error, retry time.Duration) (ctrl.Result, error) {
	o := outcome.Failure(rejected, retry, &sr.Written)
	status := sr.Component.GetStatus()
	status.Inventory = sr.Written.Inventory
	conditions.SetReady(status, sr.Component.GetGeneration(), o.Reason, o.Message, o.Stalled)
	sr.Observe(sr.ID.String(), status)
	sr.Note(sr.Component, o, false, passtrace.TraceID(ctx))
	before := sr.saidBefore()
	if err := sr.WriteStatus(ctx); err != nil && !apierrors.IsConflict(err) {
		return ctrl.Result{}, err
	}
	sr.notifyOutcome(ctx, before, o)
	return ctrl.Result{RequeueAfter: o.Requeue}, nil
}

// logOutcome logs one line at info level for a reconcile that wrote or
// deleted objects or failed: the component, its revision, the objects
// written and how long it took. A reconcile that changed nothing logs at
// debug level only.
func (sr *Recorder) logOutcome(ctx context.Context, o outcome.Outcome) {
	logger := log.FromContext(ctx)
	if sr.Writes == 0 && !o.Warns() {
		logger = logger.V(1)
	}
	logger.Info("reconciled", "component", sr.ID.String(), "revision", sr.Component.GetGeneration(),
		"objectsWritten", sr.Writes, "duration", time.Since(sr.Start).Round(time.Millisecond).String(),
		"reason", o.Reason, "message", o.Message, "requeue", o.Requeue)
}

// Continues tells whether the Reconcile that ended with o left work for the
// next one: a wave waiting, deletion under way, or new inventory items
// written ahead of their objects. The next one's span links to this one's.
func (sr *Recorder) Continues(o *outcome.Outcome) bool {
	if o == nil || o.Gone {
		return false
	}
	return sr.WroteAhead || o.Reason == api.ReasonProcessing || o.Reason == api.ReasonDeleting
}

// plantSkipWriteAhead, a planted bug (plant_on.go; the soak's
// internal/plant names it too), creates new objects without recording them
// in the inventory first.
const plantSkipWriteAhead = "skip-write-ahead"
