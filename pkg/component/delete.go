package component

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// delete removes the component's objects in delete waves and then the
// finalizer. It does not start while foreign instances of the component's
// managed types exist.
func (p *pass) delete(ctx context.Context) outcome.Outcome {
	if !p.hasFinalizer() {
		return outcome.Outcome{Gone: true}
	}
	if orphan, err := p.orphansOnDelete(); err != nil || orphan {
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
	res, err := tg.applier.Delete(ctx, owner, status.Inventory, engine.DeleteOptions{Hooks: hooks, Save: p.writeAhead})
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

// deleteHooks returns the component's delete hooks: those of the render
// this process last made of its spec (keptrender.Hooks), or of a render made now.
// A render error must not block deletion forever: deletion goes on without
// hooks, and the returned note says why, for the Ready condition and an
// event; the next pass renders again.
func (p *pass) deleteHooks(ctx context.Context, tg *target) ([]client.Object, string) {
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
