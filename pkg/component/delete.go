package component

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// delete removes the component's objects in delete waves and then the
// finalizer. It does not start while foreign instances of the component's
// managed types exist.
func (rn *run[T]) delete(ctx context.Context) outcome {
	if !rn.hasFinalizer() {
		return outcome{gone: true}
	}
	if orphan, err := rn.orphansOnDelete(); err != nil || orphan {
		if err != nil {
			return rn.fail(err)
		}
		return rn.orphanAll(ctx)
	}
	if o, waiting := rn.awaitDependents(ctx); waiting {
		return o
	}
	if rn.component.GetStatus().State != StateDeleting {
		// Until objects are being deleted; hooks must be idempotent, since a
		// blocked deletion calls them again on the next attempt.
		if err := rn.r.runHooks(ctx, rn.r.preDelete, rn.component); err != nil {
			return rn.fail(fmt.Errorf("pre-delete hook: %w", err))
		}
	}
	tg, owner, err := rn.connect(ctx)
	if err != nil {
		return rn.fail(err)
	}
	status := rn.component.GetStatus()
	hooks, skipped := rn.deleteHooks(ctx, tg)
	pass, err := rn.externalPass(tg, owner, nil)
	if err != nil {
		return rn.fail(err)
	}
	if pass != nil {
		owner.Externals = pass
	}
	res, err := tg.applier.Delete(ctx, owner, status.Inventory, engine.DeleteOptions{Hooks: hooks, Save: rn.writeAhead})
	if errors.Is(err, errWrittenAhead) {
		return rn.continued() // the next pass creates the hooks
	}
	status.Inventory = res.Inventory
	rn.r.recordActions(rn.component, res.Actions)
	rn.writes += len(res.Actions)
	newKinds := false
	if err == nil {
		newKinds, err = rn.r.watchDependents(ctx, tg, res.Inventory)
	}
	switch {
	case err != nil:
		return rn.fail(err)
	case len(res.Blocked) > 0:
		// Foreign instances send no events to this reconciler: look again later.
		return outcome{reason: ReasonDeletionBlocked, message: withNote(skipped, "deletion blocked: "+res.BlockedMessage()), requeue: min(rn.settings.retry, blockedRecheck)}
	case !res.Done:
		// Deletions arrive as events; the requeue is only a backstop.
		requeue := rn.settings.retry
		if newKinds {
			requeue = newKindRecheck
		}
		return outcome{reason: ReasonDeleting, message: withNote(skipped, describeWaiting("waiting for objects to be deleted", res.Waiting)), requeue: requeue}
	}
	if err := rn.r.runHooks(ctx, rn.r.postDelete, rn.component); err != nil {
		return rn.fail(fmt.Errorf("post-delete hook: %w", err))
	}
	return rn.removeFinalizer(ctx, "every object is deleted; removing the finalizer")
}

// removeFinalizer ends a deletion: the status says Deleting with message
// (a deletion finished in its first pass never said so), then the
// finalizer goes.
func (rn *run[T]) removeFinalizer(ctx context.Context, message string) outcome {
	rn.component.GetStatus().setReady(rn.component.GetGeneration(), ReasonDeleting, message, false)
	// Persist the emptied inventory first, so that a crash cannot leave a
	// finalizer-free component with stale items.
	err := rn.writeStatus(ctx)
	if err == nil {
		err = rn.patchFinalizers(ctx, "removing the finalizer from", func() bool {
			removed := controllerutil.RemoveFinalizer(rn.component, rn.r.opts.Finalizer)
			return controllerutil.RemoveFinalizer(rn.component, rn.r.legacyFinalizer()) || removed
		})
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return rn.fail(err)
	}
	// Gone, or already gone: a stale read of a component whose deletion had
	// finished ends here, without an error.
	rn.r.forget(rn.id)
	if err == nil {
		// A reconcile queued meanwhile may read the component from a cache
		// that still shows the finalizer (at the same resourceVersion): it
		// reads as gone, and does not run the deletion and its hooks again.
		rn.r.status.finalized(rn.component)
	}
	return outcome{gone: true}
}

// deleteHooks returns the component's delete hooks: those of the render
// this process last made of its spec (keptHooks), or of a render made now.
// A render error must not block deletion forever: deletion goes on without
// hooks, and the returned note says why, for the Ready condition and an
// event; the next pass renders again.
func (rn *run[T]) deleteHooks(ctx context.Context, tg *target) ([]client.Object, string) {
	if hooks, ok := rn.r.hooks.get(rn.id, rn.component); ok {
		return hooks, ""
	}
	objects, err := rn.render(ctx, tg)
	if err == nil {
		rn.r.hooks.keep(rn.id, rn.component, objects, rn.r.name)
		return engine.DeleteHooks(objects, rn.r.name), ""
	}
	note := fmt.Sprintf("delete hooks not run: rendering failed: %v", err)
	if rn.r.recorder != nil && rn.r.notes.changed(rn.id, "hooks\x00"+err.Error()) {
		rn.r.recorder.Eventf(rn.component, nil, "Warning", "DeleteHooksSkipped", "Delete", "%s", note)
	}
	return nil, note
}

// withNote puts note, when there is one, before message.
func withNote(note, message string) string {
	if note == "" {
		return message
	}
	return note + "; " + message
}
