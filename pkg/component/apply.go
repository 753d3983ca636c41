package component

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/attempts"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/internal/handover"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// apply renders and applies the component's objects: one engine pass, that
// of the attempt's render, of its tests while they run, or of the render it
// rolls back to.
func (p *pass) apply(ctx context.Context) outcome.Outcome {
	if err := p.finalizer().Ensure(ctx, p.component); err != nil {
		return p.fail(err)
	}
	if p.settings.Suspended {
		p.r.targets.StopWaiting(p.id)
		return outcome.Outcome{Reason: ReasonSuspended, Message: "reconciliation is suspended; objects are left as they are"}
	}
	if o, waiting := p.awaitDependencies(ctx); waiting {
		p.r.targets.StopWaiting(p.id)
		return o
	}
	tg, owner, err := p.connect(ctx)
	if err != nil {
		return p.fail(err)
	}
	if o, waiting := p.awaitObjectDependencies(ctx, tg); waiting {
		return o
	}
	if err := p.r.runHooks(ctx, p.r.on.preReconcile, p.component); err != nil {
		return p.fail(fmt.Errorf("pre-reconcile hook: %w", err))
	}
	objects, render, err := p.renderOnce(ctx, tg)
	conditions.SetSourceVerified(p.component.GetStatus(), p.component.GetGeneration(), err, p.source)
	if err != nil {
		o := p.fail(renderError(err))
		o.Warning = true
		return o
	}
	p.r.hooks.Keep(p.id, p.component.GetUID(), p.component.GetSpec(), objects, p.r.name)
	att := p.beginAttempt(render)
	switch {
	case att.Result == ResultRolledBack:
		return p.rollback(ctx, tg, owner, att)
	case attempts.TestsRunning(att):
		// The render was applied and ready when its tests began: this
		// Reconcile's pass is the tests'.
		out := p.tested(ctx, tg, owner, objects, p.ready(engine.Result{}))
		return p.settleAttempt(ctx, render, out)
	}
	return p.settleAttempt(ctx, render, p.applyRender(ctx, tg, owner, objects))
}

// connect returns the component's target and its owner identity for the
// applier, registers the owner for events, and watches the kinds the
// inventory already holds before the pass starts (a handler added later would
// miss deletions made meanwhile).
func (p *pass) connect(ctx context.Context) (*targets.Target, engine.Owner, error) {
	tg, err := p.r.targets.For(ctx, p.component, p.settings)
	if err != nil {
		return nil, engine.Owner{}, fmt.Errorf("connecting to the target cluster: %w", err)
	}
	owner, err := p.owner()
	if err != nil {
		return nil, engine.Owner{}, err
	}
	p.r.registerOwnerID(owner.ID, p.id)
	if _, err := p.r.watchKinds(ctx, tg, p.component.GetStatus().Inventory); err != nil {
		return nil, engine.Owner{}, err
	}
	return tg, owner, nil
}

// owner describes the component to the applier.
func (p *pass) owner() (engine.Owner, error) {
	c := p.component
	gvk, err := apiutil.GVKForObject(c, p.r.client.Scheme())
	if err != nil {
		return engine.Owner{}, fmt.Errorf("finding the kind of %s: %w", p.id, err)
	}
	return engine.Owner{
		ID:                     manifests.OwnerID(gvk.Group, gvk.Kind, c.GetNamespace(), c.GetName()),
		Description:            gvk.Kind + " " + p.id.String(),
		UID:                    c.GetUID(),
		Namespace:              p.settings.Namespace,
		Generation:             c.GetGeneration(),
		Defaults:               p.settings.Defaults,
		AdditionalManagedTypes: p.settings.ManagedTypes,
		Drift:                  p.settings.Drift,
		HealthChecks:           p.settings.HealthChecks,
	}, nil
}

// applyRender applies the attempt's render and, once it is ready, starts its
// tests if they are enabled.
func (p *pass) applyRender(ctx context.Context, tg *targets.Target, owner engine.Owner, objects []client.Object) outcome.Outcome {
	// The objects were decoded for this pass (renderOnce) and the pass
	// reads them no more: the applier may prepare them in place.
	res, newKinds, err := p.applyObjects(handover.Objects(ctx), tg, owner, objects)
	if err != nil {
		out := p.fail(err)
		out.FailedAttempt = attempts.IsFailure(err)
		return out
	}
	out := p.applied(ctx, res)
	if out.Reason == ReasonReady {
		out = p.startTests(out)
	}
	return out.WithRechecks(newKinds, res)
}

// rollback applies the last Ready render again in place of the attempt's,
// wave by wave as any render: what only the failed render had is pruned.
// Once it is applied and ready, attempts.rolledBack says so.
func (p *pass) rollback(ctx context.Context, tg *targets.Target, owner engine.Owner, att *Attempt) outcome.Outcome {
	good := p.component.GetStatus().LastGoodRender
	if good == nil {
		return p.attempts().CannotRollBack(att)
	}
	what := fmt.Sprintf("rolling back to the render of generation %d%s", good.Generation, attempts.RevisionOf(good))
	objects, err := p.r.renders.Load(ctx, p.id, good.Secret, good.RenderDigest)
	if err != nil {
		return p.fail(fmt.Errorf("%s: %w", what, err))
	}
	res, newKinds, err := p.applyObjects(ctx, tg, owner, objects)
	if err != nil {
		return p.fail(fmt.Errorf("%s: %w", what, err))
	}
	if !res.Done {
		return p.waiting(fmt.Sprintf("%s: waiting for wave %d", what, res.Wave), res.Waiting).WithRechecks(newKinds, res)
	}
	return p.attempts().RolledBack(p.component.GetStatus(), att, good)
}

// applyObjects applies objects for owner and records what the pass did:
// the inventory, a handled force request, Events, drift, and event handlers
// for kinds new to the target (newKinds).
func (p *pass) applyObjects(ctx context.Context, tg *targets.Target, owner engine.Owner, objects []client.Object) (res engine.Result, newKinds bool, err error) {
	status := p.component.GetStatus()
	owner.Force = p.forceRequested()
	if objects, err = p.withExternals(tg, &owner, objects); err != nil {
		return engine.Result{Inventory: status.Inventory}, false, err
	}
	res, err = tg.Applier.Apply(ctx, owner, objects, status.Inventory, p.writeAheadWithExternals)
	if errors.Is(err, outcome.ErrWrittenAhead) {
		return res, false, err // nothing was written but the status
	}
	status.Inventory = res.Inventory
	if owner.Force {
		status.LastHandledForceAt = p.requested(AnnotationForce)
	}
	p.status.RecordActions(res.Actions)
	p.status.ReportDrift(owner.Drift.Mode, res)
	p.status.NotifyDrift(ctx, p.source, res)
	if err == nil {
		newKinds, err = p.r.watchKinds(ctx, tg, res.Inventory)
	}
	return res, newKinds, err
}

// applied turns the applier's result into the outcome.
func (p *pass) applied(ctx context.Context, res engine.Result) outcome.Outcome {
	if !res.Done {
		return p.waiting(fmt.Sprintf("waiting for wave %d", res.Wave), res.Waiting)
	}
	// What the generator reported, or nothing once it reports nothing
	// (a component moved from a fetched chart to a built-in source).
	p.component.GetStatus().Source = p.source
	if err := p.r.runHooks(ctx, p.r.on.postReconcile, p.component); err != nil {
		return p.fail(fmt.Errorf("post-reconcile hook: %w", err))
	}
	return p.ready(res)
}

// ready is the outcome of a render applied and ready: res says which
// objects foreign instances keep.
func (p *pass) ready(res engine.Result) outcome.Outcome {
	message := "every object is applied and ready"
	if p.renderNotKept != "" {
		message += "; " + p.renderNotKept
	}
	requeue := p.settings.Requeue
	if len(res.Blocked) > 0 {
		// Foreign instances send this reconciler no events: look again
		// soon, so that what is kept goes within seconds of the last one.
		message += "; " + res.BlockedMessage()
		requeue = min(requeue, blockedRecheck)
	}
	return outcome.Outcome{Reason: ReasonReady, Message: message, Requeue: requeue}
}

// blockedRecheck is how soon a component looks again while foreign instances
// keep one of its objects or block its deletion: one list per kept type.
const blockedRecheck = 5 * time.Second

// waiting reports what a wave waits for (prefix, then the objects in their
// states), or a timeout, with the objects' progress, once the component
// has been processing longer than its timeout. It requeues when the
// timeout is due, so that the timeout shows even without events.
func (p *pass) waiting(prefix string, waiting []engine.Waiting) outcome.Outcome {
	timeout := p.settings.Timeout
	since, recorded := time.Now(), false // recorded: the status says since when
	if c := p.status.Written.ReadyCondition(); c != nil && c.Status != "True" {
		since, recorded = c.LastTransitionTime.Time, true
	}
	if started, ok := attempts.ClockStart(p.component.GetStatus().Attempt); ok && started.After(since) {
		since, recorded = started, true // a retry or a rollback has a timeout of its own
	}
	left := timeout - time.Since(since)
	if left <= 0 {
		// Stalled, so that waiting tools fail; the next event or retry may still recover.
		message := fmt.Sprintf("not ready after %s: %s", timeout, outcome.DescribeWaiting(prefix, waiting))
		return outcome.Outcome{Reason: ReasonTimeout, Message: message, Requeue: p.settings.Retry, Stalled: true, FailedAttempt: true}
	}
	o := outcome.Outcome{Reason: ReasonProcessing, Message: outcome.DescribeStates(prefix, waiting), Requeue: left}
	if bound := p.r.opts.WaveHeldAfter; p.r.opts.Notifier != nil && bound > 0 {
		o = o.HeldAfter(prefix, since, recorded, bound, p.component.GetGeneration())
	}
	return o
}
