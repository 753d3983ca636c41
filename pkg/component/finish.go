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
func (p *pass[T]) finish(ctx context.Context, o outcome) (ctrl.Result, error) {
	if o.gone {
		return ctrl.Result{}, nil
	}
	p.logOutcome(ctx, o)
	// The outcome is written even when the reconcile ran out of its time: a
	// fresh context, bounded on its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusWriteTimeout)
	defer cancel()
	err := p.writeOutcome(ctx, o)
	p.r.gauge.observe(p.id.String(), p.component.GetStatus())
	var tooLarge *tooLargeError
	var rejected *rejectedStatusError
	switch {
	case errors.As(err, &tooLarge):
		return p.finishTooLarge(ctx, err)
	case errors.As(err, &rejected):
		return p.finishRejected(ctx, err)
	case apierrors.IsConflict(err):
		// Someone changed the component since it was read: start over.
		return ctrl.Result{RequeueAfter: time.Second}, nil
	case apierrors.IsNotFound(err):
		// Deleted meanwhile (a stale read of a component whose deletion
		// just finished): there is nothing left to report on.
		p.r.forget(p.id)
		return ctrl.Result{}, nil
	}
	if p.r.note(p.component, o, p.writes > 0 || p.wroteAhead, traceID(ctx)) && o.reason == ReasonWriteLoop {
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
func (p *pass[T]) writeOutcome(ctx context.Context, o outcome) error {
	if p.wroteAhead {
		return nil
	}
	p.component.GetStatus().setReady(p.component.GetGeneration(), o.reason, o.message, o.stalled)
	p.recordReconcileRequest()
	return p.writeStatus(ctx)
}

// finishTooLarge reports a status too large to store. It keeps the inventory
// as last stored, which already records every object the pass may have
// created, since new items are stored before their objects are created.
func (p *pass[T]) finishTooLarge(ctx context.Context, tooLarge error) (ctrl.Result, error) {
	status := p.component.GetStatus()
	status.Inventory = p.written.Inventory
	status.setReady(p.component.GetGeneration(), ReasonError, tooLarge.Error(), true)
	p.r.gauge.observe(p.id.String(), status)
	p.r.note(p.component, outcome{reason: ReasonError, message: tooLarge.Error(), stalled: true}, false, traceID(ctx))
	if err := p.writeStatus(ctx); err != nil && !apierrors.IsConflict(err) {
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
func (p *pass[T]) writeStatus(ctx context.Context) error {
	status := p.component.GetStatus()
	sameInventory := manifests.EqualInventories(status.Inventory, p.written.Inventory)
	if sameInventory && sameBesideInventory(*status, p.written) || p.r.pruned.sameButPruned(status, &p.written) {
		return nil
	}
	if !sameInventory {
		if err := p.checkSize(); err != nil {
			return err
		}
	}
	status.LastTraceID = traceID(ctx)
	sent := jsonMap(status)
	if err := p.updateStatus(ctx); err != nil {
		if apierrors.IsInvalid(err) {
			err = p.rejected(ctx, err)
		}
		return fmt.Errorf("writing status of %s: %w", p.id, err)
	}
	p.noticePruned(ctx, sent)
	p.written = *status.DeepCopy()
	p.r.status.remember(p.component)
	return nil
}

// updateStatus sends the status to the API server, in a span of its own.
func (p *pass[T]) updateStatus(ctx context.Context) error {
	ctx, span := startSpan(ctx, "write status")
	if span.IsRecording() {
		span.SetAttributes(attrObjects.Int(len(p.component.GetStatus().Inventory)))
	}
	err := p.r.client.Status().Update(ctx, p.component, client.FieldOwner(p.r.opts.FieldOwner))
	spans.End(span, err)
	return err
}

// checkSize refuses an inventory that would make the component larger than
// the API server can store once its objects are applied, with a message that
// says what to do, rather than letting etcd reject the write ("request is too
// large") or, worse, accept it and reject the next one.
func (p *pass[T]) checkSize() error {
	data, err := json.Marshal(p.component)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", p.id, err)
	}
	inventory := p.component.GetStatus().Inventory
	size := len(data)
	for _, item := range inventory {
		size += item.AppliedGrowth()
	}
	if limit := p.r.opts.MaxObjectBytes; size > limit {
		return &tooLargeError{message: fmt.Sprintf(
			"component %s would take %s with an inventory of %d objects, more than the %s an object may take (etcd's default request limit is 1.5 MiB): split it into smaller components",
			p.id, byteSize(size), len(inventory), byteSize(limit))}
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
func (p *pass[T]) logOutcome(ctx context.Context, o outcome) {
	logger := log.FromContext(ctx)
	if p.writes == 0 && !o.warns() {
		logger = logger.V(1)
	}
	logger.Info("reconciled", "component", p.id.String(), "revision", p.component.GetGeneration(),
		"objectsWritten", p.writes, "duration", time.Since(p.start).Round(time.Millisecond).String(),
		"reason", o.reason, "message", o.message, "requeue", o.requeue)
}
