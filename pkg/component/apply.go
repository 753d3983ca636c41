package component

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// apply renders and applies the component's objects: one engine pass, that
// of the attempt's render, of its tests while they run, or of the render it
// rolls back to.
func (rn *run[T]) apply(ctx context.Context) outcome {
	if err := rn.ensureFinalizer(ctx); err != nil {
		return rn.fail(err)
	}
	if rn.settings.suspended {
		rn.r.targets.stopWaiting(rn.id)
		return outcome{reason: ReasonSuspended, message: "reconciliation is suspended; objects are left as they are"}
	}
	if o, waiting := rn.awaitDependencies(ctx); waiting {
		rn.r.targets.stopWaiting(rn.id)
		return o
	}
	tg, owner, err := rn.connect(ctx)
	if err != nil {
		return rn.fail(err)
	}
	if o, waiting := rn.awaitObjectDependencies(ctx, tg); waiting {
		return o
	}
	if err := rn.r.runHooks(ctx, rn.r.preReconcile, rn.component); err != nil {
		return rn.fail(fmt.Errorf("pre-reconcile hook: %w", err))
	}
	objects, err := rn.renderOnce(ctx, tg)
	rn.recordVerification(err)
	if err != nil {
		o := rn.fail(renderError(err))
		o.warning = true
		return o
	}
	rn.r.hooks.keep(rn.id, rn.component, objects, rn.r.name)
	att, render, err := rn.beginAttempt(objects)
	if err != nil {
		return rn.fail(err)
	}
	switch {
	case att.Result == ResultRolledBack:
		return rn.rollback(ctx, tg, owner, att)
	case att.testsRunning():
		// The render was applied and ready when its tests began: this
		// Reconcile's pass is the tests'.
		out := rn.tested(ctx, tg, owner, objects, rn.ready(engine.Result{}))
		return rn.settleAttempt(ctx, render, out)
	}
	return rn.settleAttempt(ctx, render, rn.applyRender(ctx, tg, owner, objects))
}

// applyRender applies the attempt's render and, once it is ready, starts its
// tests if they are enabled.
func (rn *run[T]) applyRender(ctx context.Context, tg *target, owner engine.Owner, objects []client.Object) outcome {
	res, newKinds, err := rn.applyObjects(ctx, tg, owner, objects)
	if err != nil {
		out := rn.fail(err)
		out.failedAttempt = isAttemptFailure(err)
		return out
	}
	out := rn.applied(ctx, res)
	if out.reason == ReasonReady {
		out = rn.startTests(out)
	}
	return out.withNewKinds(newKinds, res)
}

// applyObjects applies objects for owner and records what the pass did:
// the inventory, a handled force request, Events, drift, and event handlers
// for kinds new to the target (newKinds).
func (rn *run[T]) applyObjects(ctx context.Context, tg *target, owner engine.Owner, objects []client.Object) (res engine.Result, newKinds bool, err error) {
	status := rn.component.GetStatus()
	owner.Force = rn.forceRequested()
	if objects, err = rn.withExternals(tg, &owner, objects); err != nil {
		return engine.Result{Inventory: status.Inventory}, false, err
	}
	res, err = tg.applier.Apply(ctx, owner, objects, status.Inventory, rn.writeAheadWithExternals)
	if errors.Is(err, errWrittenAhead) {
		return res, false, err // nothing was written but the status
	}
	status.Inventory = res.Inventory
	if owner.Force {
		status.LastHandledForceAt = rn.requested(AnnotationForce)
	}
	rn.r.recordActions(rn.component, res.Actions)
	rn.writes += len(res.Actions)
	rn.reportDrift(owner.Drift.Mode, res)
	if err == nil {
		newKinds, err = rn.r.watchDependents(ctx, tg, res.Inventory)
	}
	return res, newKinds, err
}

// newKindRecheck is how soon a pass that is not done runs again when it
// wrote objects of a kind that had no event handler yet: what happened to
// them before the handler came (a purged hook's deletion, a Job's
// completion) is not replayed to it.
const newKindRecheck = 100 * time.Millisecond

// withNewKinds is o for a pass that wrote objects of kinds that had no
// event handler yet (newKinds): when it is not done, it runs again within
// newKindRecheck.
func (o outcome) withNewKinds(newKinds bool, res engine.Result) outcome {
	if newKinds && !res.Done {
		o.requeue = min(o.requeue, newKindRecheck)
	}
	return o
}

// renderError says the generator failed. A generator error is the input's
// (a template, values, a chart) unless the generator said to retry.
func renderError(err error) error {
	err = fmt.Errorf("rendering: %w", err)
	if _, retriable := asRetriable(err); retriable {
		return err
	}
	return &manifests.UserError{Err: err}
}

// blockedRecheck is how soon a component looks again while foreign instances
// keep one of its objects or block its deletion: one list per kept type.
const blockedRecheck = 5 * time.Second

// render calls the generator with the target's reader and discovery and the
// component's info in the context.
func (rn *run[T]) render(ctx context.Context, tg *target) ([]client.Object, error) {
	status := rn.component.GetStatus()
	ctx = manifests.WithClient(ctx, tg.RenderReader)
	ctx = manifests.WithDiscovery(ctx, tg.Discovery)
	ctx = manifests.WithComponentInfo(ctx, manifests.ComponentInfo{
		Object: rn.component, OperatorName: rn.r.name,
		Revision: rn.component.GetGeneration(), FirstApply: status.isInstall(rn.component.GetGeneration()),
	})
	ctx, reported := manifests.WithSourceReport(ctx)
	ctx, span := startSpan(ctx, "render")
	objects, err := rn.r.generator.Generate(ctx, rn.settings.namespace, rn.settings.name, rn.component.GetSpec())
	rn.source = reported()
	if span.IsRecording() {
		span.SetAttributes(attrObjects.Int(len(objects)))
		if rn.source != nil {
			span.SetAttributes(attrRevision.String(rn.source.Revision), attrDigest.String(rn.source.Digest))
		}
	}
	spans.End(span, err)
	return objects, err
}

// applied turns the applier's result into the outcome.
func (rn *run[T]) applied(ctx context.Context, res engine.Result) outcome {
	if !res.Done {
		return rn.waiting(fmt.Sprintf("waiting for wave %d", res.Wave), res.Waiting)
	}
	// What the generator reported, or nothing once it reports nothing
	// (a component moved from a fetched chart to a built-in source).
	rn.component.GetStatus().Source = rn.source
	if err := rn.r.runHooks(ctx, rn.r.postReconcile, rn.component); err != nil {
		return rn.fail(fmt.Errorf("post-reconcile hook: %w", err))
	}
	return rn.ready(res)
}

// ready is the outcome of a render applied and ready: res says which
// objects foreign instances keep.
func (rn *run[T]) ready(res engine.Result) outcome {
	message := "every object is applied and ready"
	requeue := rn.settings.requeue
	if len(res.Blocked) > 0 {
		// Foreign instances send this reconciler no events: look again
		// soon, so that what is kept goes within seconds of the last one.
		message += "; " + res.BlockedMessage()
		requeue = min(requeue, blockedRecheck)
	}
	return outcome{reason: ReasonReady, message: message, requeue: requeue}
}

// waiting reports what a wave waits for (prefix, then the objects in their
// states), or a timeout, with the objects' progress, once the component
// has been processing longer than its timeout. It requeues when the
// timeout is due, so that the timeout shows even without events.
func (rn *run[T]) waiting(prefix string, waiting []engine.Waiting) outcome {
	timeout := rn.settings.timeout
	since := time.Now()
	if c := rn.written.ReadyCondition(); c != nil && c.Status != "True" {
		since = c.LastTransitionTime.Time
	}
	if started, ok := rn.component.GetStatus().Attempt.clockStart(); ok && started.After(since) {
		since = started // a retry or a rollback has a timeout of its own
	}
	left := timeout - time.Since(since)
	if left <= 0 {
		// Stalled, so that waiting tools fail; the next event or retry may still recover.
		message := fmt.Sprintf("not ready after %s: %s", timeout, describeWaiting(prefix, waiting))
		return outcome{reason: ReasonTimeout, message: message, requeue: rn.settings.retry, stalled: true, failedAttempt: true}
	}
	return outcome{reason: ReasonProcessing, message: describeStates(prefix, waiting), requeue: left}
}

// connect returns the component's target and its owner identity for the
// applier, registers the owner for events, and watches the kinds the
// inventory already holds before the pass starts (a handler added later would
// miss deletions made meanwhile).
func (rn *run[T]) connect(ctx context.Context) (*target, engine.Owner, error) {
	tg, err := rn.r.targets.forComponent(ctx, rn.component, rn.settings)
	if err != nil {
		return nil, engine.Owner{}, fmt.Errorf("connecting to the target cluster: %w", err)
	}
	owner, err := rn.owner()
	if err != nil {
		return nil, engine.Owner{}, err
	}
	rn.r.registerOwner(owner.ID, rn.id)
	if _, err := rn.r.watchDependents(ctx, tg, rn.component.GetStatus().Inventory); err != nil {
		return nil, engine.Owner{}, err
	}
	return tg, owner, nil
}
