package component

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/passtrace"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/report"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/settings"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// Reconcile brings one component's objects to their rendered state, or
// deletes them when the component is being deleted, and records the outcome
// in its status. It runs at most one engine pass and writes the status at
// most once, only when it changed.
func (r *Reconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.reconcile(ctx, req)
}

// reconcile is Reconcile.
func (r *core) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start := time.Now()
	reconcilesStarted.WithLabelValues(r.name).Inc()
	result := resultFailed
	ctx, span := r.traces.Start(ctx, req.NamespacedName)
	var rec *report.Recorder
	var o *outcome.Outcome
	defer func() {
		reconcileDuration.WithLabelValues(r.name).Observe(time.Since(start).Seconds())
		reconcilesFinished.WithLabelValues(r.name, result).Inc()
		r.traces.End(span, req.NamespacedName, result, o, rec != nil && rec.Continues(o))
	}()
	component, err := r.readTraced(ctx, req.NamespacedName)
	if errors.Is(err, errFinalized) {
		result = resultGone
		return ctrl.Result{}, nil
	}
	if apierrors.IsNotFound(err) {
		result = resultGone
		r.forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	if err != nil {
		err = fmt.Errorf("reading %s: %w", req.NamespacedName, err)
		if span.IsRecording() {
			spans.Fail(span, err, err.Error())
		}
		return ctrl.Result{}, err
	}
	if !r.selects(component) {
		// Another shard's now: it takes over from the status as stored.
		result = resultSkipped
		r.forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	if r.opts.Filter != nil && !r.opts.Filter(component) {
		result = resultSkipped
		return ctrl.Result{}, nil
	}
	passtrace.Describe(span, component)
	r.notes.Seed(req.NamespacedName, component.GetGeneration(), component.GetStatus())
	rec = &report.Recorder{Reporter: r.reporter(), Component: component, ID: req.NamespacedName, Written: *component.GetStatus().DeepCopy(), Start: start}
	p := &pass{r: r, status: rec, component: component, id: req.NamespacedName}
	passed := p.applyOrDelete(ctx)
	if errors.Is(ctx.Err(), context.Canceled) {
		// The process stops; a ReconcileTimeout would be DeadlineExceeded,
		// which is the pass's own outcome and reported.
		passed = outcome.Interrupt(passed)
	}
	rec.Source = p.source
	o, result = &passed, resultOf(passed)
	return rec.Finish(ctx, passed, p.settings.Retry)
}

// readTraced is read, in a span of its own.
func (r *core) readTraced(ctx context.Context, id types.NamespacedName) (Component, error) {
	ctx, span := passtrace.Span(ctx, "read")
	component, err := r.read(ctx, id)
	failed := err
	if errors.Is(err, errFinalized) || apierrors.IsNotFound(err) {
		failed = nil // gone: not a failure
	}
	spans.End(span, failed)
	return component, err
}

// settingsDefaults are the options a component's configurations override.
func (r *core) settingsDefaults() settings.Defaults {
	return settings.Defaults{Requeue: r.opts.RequeueInterval, Retry: r.opts.RetryInterval, Timeout: r.opts.Timeout,
		Reapply: r.opts.ReapplyInterval, DefaultServiceAccount: r.opts.DefaultServiceAccount}
}

// reporter is what the Reconcile's status recorder shares with the
// reconciler (package report).
func (r *core) reporter() *report.Reporter {
	rep := &report.Reporter{
		Operator: r.name, Client: r.client, FieldOwner: r.opts.FieldOwner, MaxObjectBytes: r.opts.MaxObjectBytes,
		Notifier: r.opts.Notifier, Written: r.status, Pruned: r.pruned, Notes: r.notes, Held: r.held,
		Observe: r.gauge.observe, Forget: r.forget,
		Wrote: func(c Component, n int) {
			objectWrites.WithLabelValues(r.name, c.GetNamespace(), c.GetName()).Add(float64(n))
		},
	}
	if r.recorder != nil {
		rep.Events = r.recorder
	}
	return rep
}

// applyOrDelete applies the component, or deletes it once it is being deleted.
func (p *pass) applyOrDelete(ctx context.Context) outcome.Outcome {
	err := p.r.runHooks(ctx, p.r.on.postRead, p.component)
	// After the hooks, which may change the spec; before anything reads them.
	p.settings = settings.Resolve(p.component, p.r.settingsDefaults())
	if err != nil {
		return p.fail(fmt.Errorf("post-read hook: %w", err))
	}
	if p.component.GetDeletionTimestamp() != nil {
		return p.delete(ctx)
	}
	return p.apply(ctx)
}

// errFinalized is read's answer for a component whose finalizer this
// reconciler removed, which a lagging cache may still show.
var errFinalized = errors.New("finalizer removed: the deletion is over")

func (r *core) read(ctx context.Context, id types.NamespacedName) (Component, error) {
	obj := r.newObject()
	if err := r.client.Get(ctx, id, obj); err != nil {
		return nil, err
	}
	if r.status.IsFinalized(obj) {
		return nil, errFinalized
	}
	return r.status.Newest(obj), nil
}

// resultOf names the outcome in the reconcile metrics.
func resultOf(o outcome.Outcome) string {
	switch {
	case o.Gone:
		return resultDeleted
	case o.Interrupted:
		return resultInterrupted
	}
	return o.Reason
}
