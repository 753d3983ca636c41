package component

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// statusRecorder records the outcome of one Reconcile: in the component's
// status, written at most once per Reconcile (at its end, or ahead of the
// new objects of its pass: writeahead.go), in an Event (events.go) and in
// the log. A status the API server refuses is reported in its stead
// (rejected.go), and fields its CRD drops are noticed (pruned.go).
type statusRecorder[T Component] struct {
	r          *Reconciler[T]
	component  T
	id         types.NamespacedName
	written    Status    // the status as last read or written
	start      time.Time // when the Reconcile began
	writes     int       // the objects the Reconcile wrote or deleted
	wroteAhead bool      // the status was written ahead of the objects of the pass, which the next Reconcile creates
}

// statusWriteTimeout bounds the final status write of a reconcile.
const statusWriteTimeout = 10 * time.Second

// finish records the outcome in the status, writes it if it changed and
// emits an event when the outcome is new; retry is the component's retry
// interval. A status the API server refuses
// is reported in its stead (finishTooLarge, finishRejected), with an event
// of its own.
func (sr *statusRecorder[T]) finish(ctx context.Context, o outcome, retry time.Duration) (ctrl.Result, error) {
	if o.gone {
		return ctrl.Result{}, nil
	}
	sr.logOutcome(ctx, o)
	// The outcome is written even when the reconcile ran out of its time: a
	// fresh context, bounded on its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusWriteTimeout)
	defer cancel()
	err := sr.writeOutcome(ctx, o)
	sr.r.gauge.observe(sr.id.String(), sr.component.GetStatus())
	var tooLarge *tooLargeError
	var rejected *rejectedStatusError
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
	if sr.r.note(sr.component, o, sr.writes > 0 || sr.wroteAhead, traceID(ctx)) && o.reason == ReasonWriteLoop {
		log.FromContext(ctx).Info("stopped writing an object that is changed back after every write", "message", o.message)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: o.requeue}, o.err
}

// writeOutcome records the outcome in the status and writes it, unless the
// Reconcile wrote the status ahead of its pass: a Reconcile writes the
// status once, and the next one, at once, runs the pass and reports it.
func (sr *statusRecorder[T]) writeOutcome(ctx context.Context, o outcome) error {
	if sr.wroteAhead {
		return nil
	}
	sr.component.GetStatus().setReady(sr.component.GetGeneration(), o.reason, o.message, o.stalled)
	sr.recordReconcileRequest()
	return sr.writeStatus(ctx)
}

// finishTooLarge reports a status too large to store. It keeps the inventory
// as last stored, which already records every object the pass may have
// created, since new items are stored before their objects are created.
func (sr *statusRecorder[T]) finishTooLarge(ctx context.Context, tooLarge error) (ctrl.Result, error) {
	status := sr.component.GetStatus()
	status.Inventory = sr.written.Inventory
	status.setReady(sr.component.GetGeneration(), ReasonError, tooLarge.Error(), true)
	sr.r.gauge.observe(sr.id.String(), status)
	sr.r.note(sr.component, outcome{reason: ReasonError, message: tooLarge.Error(), stalled: true}, false, traceID(ctx))
	if err := sr.writeStatus(ctx); err != nil && !apierrors.IsConflict(err) {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, tooLarge
}

// sameBesideInventory tells whether two statuses are the same in all but
// their inventories, which manifests.EqualInventories compares without
// reflection.
func sameBesideInventory(a, b Status) bool {
	a.Inventory, b.Inventory = nil, nil
	return apiequality.Semantic.DeepEqual(a, b)
}

// writeStatus writes the status if it differs from what was read or last
// written (optimistic locking through the resourceVersion).
func (sr *statusRecorder[T]) writeStatus(ctx context.Context) error {
	status := sr.component.GetStatus()
	sameInventory := manifests.EqualInventories(status.Inventory, sr.written.Inventory)
	if sameInventory && sameBesideInventory(*status, sr.written) || sr.r.pruned.sameButPruned(status, &sr.written) {
		return nil
	}
	if !sameInventory {
		if err := sr.checkSize(); err != nil {
			return err
		}
	}
	status.LastTraceID = traceID(ctx)
	sent := jsonMap(status)
	if err := sr.updateStatus(ctx); err != nil {
		if apierrors.IsInvalid(err) {
			err = sr.rejected(ctx, err)
		}
		return fmt.Errorf("writing status of %s: %w", sr.id, err)
	}
	sr.noticePruned(ctx, sent)
	sr.written = *status.DeepCopy()
	sr.r.status.remember(sr.component)
	return nil
}

// updateStatus sends the status to the API server, in a span of its own.
func (sr *statusRecorder[T]) updateStatus(ctx context.Context) error {
	ctx, span := startSpan(ctx, "write status")
	if span.IsRecording() {
		span.SetAttributes(attrObjects.Int(len(sr.component.GetStatus().Inventory)))
	}
	err := sr.r.client.Status().Update(ctx, sr.component, client.FieldOwner(sr.r.opts.FieldOwner))
	spans.End(span, err)
	return err
}

// checkSize refuses an inventory that would make the component larger than
// the API server can store once its objects are applied, with a message that
// says what to do, rather than letting etcd reject the write ("request is too
// large") or, worse, accept it and reject the next one.
func (sr *statusRecorder[T]) checkSize() error {
	data, err := json.Marshal(sr.component)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", sr.id, err)
	}
	inventory := sr.component.GetStatus().Inventory
	size := len(data)
	for _, item := range inventory {
		size += item.AppliedGrowth()
	}
	if limit := sr.r.opts.MaxObjectBytes; size > limit {
		return &tooLargeError{message: fmt.Sprintf(
			"component %s would take %s with an inventory of %d objects, more than the %s an object may take (etcd's default request limit is 1.5 MiB): split it into smaller components",
			sr.id, byteSize(size), len(inventory), byteSize(limit))}
	}
	return nil
}

// tooLargeError says that a status was not written because the component
// would be too large to store.
type tooLargeError struct{ message string }

func (e *tooLargeError) Error() string { return e.message }

// logOutcome logs one line at info level for a reconcile that wrote or
// deleted objects or failed: the component, its revision, the objects
// written and how long it took. A reconcile that changed nothing logs at
// debug level only.
func (sr *statusRecorder[T]) logOutcome(ctx context.Context, o outcome) {
	logger := log.FromContext(ctx)
	if sr.writes == 0 && !o.warns() {
		logger = logger.V(1)
	}
	logger.Info("reconciled", "component", sr.id.String(), "revision", sr.component.GetGeneration(),
		"objectsWritten", sr.writes, "duration", time.Since(sr.start).Round(time.Millisecond).String(),
		"reason", o.reason, "message", o.message, "requeue", o.requeue)
}
