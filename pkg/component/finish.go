package component

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// statusWriteTimeout bounds the final status write of a reconcile.
const statusWriteTimeout = 10 * time.Second

// finish records the outcome in the status, writes it if it changed and
// emits an event when the outcome is new. A status the API server refuses
// is reported in its stead (finishTooLarge, finishRejected), with an event
// of its own.
func (rn *run[T]) finish(ctx context.Context, o outcome) (ctrl.Result, error) {
	if o.gone {
		return ctrl.Result{}, nil
	}
	rn.logOutcome(ctx, o)
	// The outcome is written even when the reconcile ran out of its time: a
	// fresh context, bounded on its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusWriteTimeout)
	defer cancel()
	err := rn.writeOutcome(ctx, o)
	rn.r.gauge.observe(rn.id.String(), rn.component.GetStatus())
	var tooLarge *tooLargeError
	var rejected *rejectedStatusError
	switch {
	case errors.As(err, &tooLarge):
		return rn.finishTooLarge(ctx, err)
	case errors.As(err, &rejected):
		return rn.finishRejected(ctx, err)
	case apierrors.IsConflict(err):
		// Someone changed the component since it was read: start over.
		return ctrl.Result{RequeueAfter: time.Second}, nil
	case apierrors.IsNotFound(err):
		// Deleted meanwhile (a stale read of a component whose deletion
		// just finished): there is nothing left to report on.
		rn.r.forget(rn.id)
		return ctrl.Result{}, nil
	}
	if rn.r.note(rn.component, o, rn.writes > 0 || rn.wroteAhead, traceID(ctx)) && o.reason == ReasonWriteLoop {
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
func (rn *run[T]) writeOutcome(ctx context.Context, o outcome) error {
	if rn.wroteAhead {
		return nil
	}
	rn.component.GetStatus().setReady(rn.component.GetGeneration(), o.reason, o.message, o.stalled)
	rn.recordReconcileRequest()
	return rn.writeStatus(ctx)
}

// finishTooLarge reports a status too large to store. It keeps the inventory
// as last stored, which already records every object the pass may have
// created, since new items are stored before their objects are created.
func (rn *run[T]) finishTooLarge(ctx context.Context, tooLarge error) (ctrl.Result, error) {
	status := rn.component.GetStatus()
	status.Inventory = rn.written.Inventory
	status.setReady(rn.component.GetGeneration(), ReasonError, tooLarge.Error(), true)
	rn.r.gauge.observe(rn.id.String(), status)
	rn.r.note(rn.component, outcome{reason: ReasonError, message: tooLarge.Error(), stalled: true}, false, traceID(ctx))
	if err := rn.writeStatus(ctx); err != nil && !apierrors.IsConflict(err) {
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
func (rn *run[T]) writeStatus(ctx context.Context) error {
	status := rn.component.GetStatus()
	sameInventory := manifests.EqualInventories(status.Inventory, rn.written.Inventory)
	if sameInventory && sameBesideInventory(*status, rn.written) || rn.r.pruned.sameButPruned(status, &rn.written) {
		return nil
	}
	if !sameInventory {
		if err := rn.checkSize(); err != nil {
			return err
		}
	}
	status.LastTraceID = traceID(ctx)
	sent := jsonMap(status)
	if err := rn.updateStatus(ctx); err != nil {
		if apierrors.IsInvalid(err) {
			err = rn.rejected(ctx, err)
		}
		return fmt.Errorf("writing status of %s: %w", rn.id, err)
	}
	rn.noticePruned(ctx, sent)
	rn.written = *status.DeepCopy()
	rn.r.status.remember(rn.component)
	return nil
}

// updateStatus sends the status to the API server, in a span of its own.
func (rn *run[T]) updateStatus(ctx context.Context) error {
	ctx, span := startSpan(ctx, "write status")
	if span.IsRecording() {
		span.SetAttributes(attrObjects.Int(len(rn.component.GetStatus().Inventory)))
	}
	err := rn.r.client.Status().Update(ctx, rn.component, client.FieldOwner(rn.r.opts.FieldOwner))
	spans.End(span, err)
	return err
}

// checkSize refuses an inventory that would make the component larger than
// the API server can store once its objects are applied, with a message that
// says what to do, rather than letting etcd reject the write ("request is too
// large") or, worse, accept it and reject the next one.
func (rn *run[T]) checkSize() error {
	data, err := json.Marshal(rn.component)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", rn.id, err)
	}
	inventory := rn.component.GetStatus().Inventory
	size := len(data)
	for _, item := range inventory {
		size += item.AppliedGrowth()
	}
	if limit := rn.r.opts.MaxObjectBytes; size > limit {
		return &tooLargeError{message: fmt.Sprintf(
			"component %s would take %s with an inventory of %d objects, more than the %s an object may take (etcd's default request limit is 1.5 MiB): split it into smaller components",
			rn.id, byteSize(size), len(inventory), byteSize(limit))}
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
func (rn *run[T]) logOutcome(ctx context.Context, o outcome) {
	logger := log.FromContext(ctx)
	if rn.writes == 0 && !o.warns() {
		logger = logger.V(1)
	}
	logger.Info("reconciled", "component", rn.id.String(), "revision", rn.component.GetGeneration(),
		"objectsWritten", rn.writes, "duration", time.Since(rn.start).Round(time.Millisecond).String(),
		"reason", o.reason, "message", o.message, "requeue", o.requeue)
}
