package component

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/finalizer"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// delete removes the component's objects in delete waves and then the
// finalizer. It does not start while foreign instances of the component's
// managed types exist.
func (p *pass) delete(ctx context.Context) outcome.Outcome {
	if !p.finalizer().On(p.component) {
		return outcome.Outcome{Gone: true}
	}
	if orphan, err := finalizer.OrphansOnDelete(p.component, p.r.name); err != nil || orphan {
		if err != nil {
			return p.fail(err)
		}
		return p.orphanAll(ctx)
	}
	if o, waiting := p.awaitDependents(ctx); waiting {
		return o
	}
	if p.component.GetStatus().State != StateDeleting {
		// Until objects are being deleted; hooks must be idempotent, since a
		// blocked deletion calls them again on the next attempt.
		if err := p.r.runHooks(ctx, p.r.on.preDelete, p.component); err != nil {
			return p.fail(fmt.Errorf("pre-delete hook: %w", err))
		}
	}
	tg, owner, err := p.connect(ctx)
	if err != nil {
		return p.fail(err)
	}
	status := p.component.GetStatus()
	hooks, skipped := p.deleteHooks(ctx, tg)
	ext, err := p.externalPass(tg, owner, nil)
	if err != nil {
		return p.fail(err)
	}
	if ext != nil {
		owner.Externals = ext
	}
	res, err := tg.Applier.Delete(ctx, owner, status.Inventory, engine.DeleteOptions{Hooks: hooks, Save: p.writeAhead})
	if errors.Is(err, outcome.ErrWrittenAhead) {
		return outcome.Continued(&p.status.Written) // the next pass creates the hooks
	}
	status.Inventory = res.Inventory
	p.status.RecordActions(res.Actions)
	newKinds := false
	if err == nil {
		newKinds, err = p.r.watchKinds(ctx, tg, res.Inventory)
	}
	switch {
	case err != nil:
		return p.fail(err)
	case len(res.Blocked) > 0:
		// Foreign instances send no events to this reconciler: look again later.
		return outcome.Outcome{Reason: ReasonDeletionBlocked, Message: withNote(skipped, "deletion blocked: "+res.BlockedMessage()), Requeue: min(p.settings.Retry, blockedRecheck)}
	case !res.Done:
		// Deletions arrive as events; the requeue is only a backstop.
		requeue := p.settings.Retry
		if newKinds {
			requeue = outcome.NewKindRecheck
		}
		return outcome.Outcome{Reason: ReasonDeleting, Message: withNote(skipped, outcome.DescribeWaiting("waiting for objects to be deleted", res.Waiting)), Requeue: requeue}
	}
	if err := p.r.runHooks(ctx, p.r.on.postDelete, p.component); err != nil {
		return p.fail(fmt.Errorf("post-delete hook: %w", err))
	}
	return p.removeFinalizer(ctx, "every object is deleted; removing the finalizer")
}

// finalizer is the reconciler's finalizer on the component (package
// finalizer).
func (p *pass) finalizer() finalizer.Finalizer {
	return finalizer.Finalizer{Client: p.r.client, FieldOwner: p.r.opts.FieldOwner,
		Name: p.r.opts.Finalizer, Legacy: finalizer.Legacy(p.r.name, p.r.opts.Finalizer)}
}

// removeFinalizer ends a deletion: the status says Deleting with message
// (a deletion finished in its first pass never said so), then the
// finalizer goes.
func (p *pass) removeFinalizer(ctx context.Context, message string) outcome.Outcome {
	conditions.SetReady(p.component.GetStatus(), p.component.GetGeneration(), ReasonDeleting, message, false)
	// Persist the emptied inventory first, so that a crash cannot leave a
	// finalizer-free component with stale items.
	err := p.status.WriteStatus(ctx)
	if err == nil {
		err = p.finalizer().Remove(ctx, p.component)
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return p.fail(err)
	}
	// Gone, or already gone: a stale read of a component whose deletion had
	// finished ends here, without an error.
	p.r.forget(p.id)
	if err == nil {
		// A reconcile queued meanwhile may read the component from a cache
		// that still shows the finalizer (at the same resourceVersion): it
		// reads as gone, and does not run the deletion and its hooks again.
		p.r.status.Finalized(p.component)
	}
	return outcome.Outcome{Gone: true}
}

// orphanAll ends the deletion without contacting the target: the objects in
// the inventory stay as they are, with their owner label, and an event says
// how many were left.
func (p *pass) orphanAll(ctx context.Context) outcome.Outcome {
	left := len(p.component.GetStatus().Inventory)
	p.status.Warn("", "Orphaned", "Delete", fmt.Sprintf("deleted without contacting the target: %d objects left as they are (annotation %s)",
		left, manifests.Key(p.r.name, manifests.AnnotationDeletePolicy)))
	p.component.GetStatus().Inventory = nil
	return p.removeFinalizer(ctx, "objects left as they are; removing the finalizer")
}

// deleteHooks returns the component's delete hooks: those of the render
// this process last made of its spec (keptrender.Hooks), or of a render made now.
// A render error must not block deletion forever: deletion goes on without
// hooks, and the returned note says why, for the Ready condition and an
// event; the next pass renders again.
func (p *pass) deleteHooks(ctx context.Context, tg *targets.Target) ([]client.Object, string) {
	if hooks, ok := p.r.hooks.Get(p.id, p.component.GetUID(), p.component.GetSpec()); ok {
		return hooks, ""
	}
	objects, err := p.render(ctx, tg)
	if err == nil {
		p.r.hooks.Keep(p.id, p.component.GetUID(), p.component.GetSpec(), objects, p.r.name)
		return engine.DeleteHooks(objects, p.r.name), ""
	}
	note := fmt.Sprintf("delete hooks not run: rendering failed: %v", err)
	p.status.Warn("hooks\x00"+err.Error(), "DeleteHooksSkipped", "Delete", note)
	return nil, note
}

// withNote puts note, when there is one, before message.
func withNote(note, message string) string {
	if note == "" {
		return message
	}
	return note + "; " + message
}
