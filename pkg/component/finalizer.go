package component

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
)

// ensureFinalizer adds the finalizer on first reconcile, replacing the bare
// operator name that earlier versions set (the API server warns about a
// finalizer without a path).
func (p *pass) ensureFinalizer(ctx context.Context) error {
	return p.patchFinalizers(ctx, "adding the finalizer to", func() bool {
		migrated := controllerutil.RemoveFinalizer(p.component, p.r.legacyFinalizer())
		return controllerutil.AddFinalizer(p.component, p.r.opts.Finalizer) || migrated
	})
}

// hasFinalizer tells whether the component carries this reconciler's
// finalizer, or the one earlier versions set.
func (p *pass) hasFinalizer() bool {
	return controllerutil.ContainsFinalizer(p.component, p.r.opts.Finalizer) ||
		controllerutil.ContainsFinalizer(p.component, p.r.legacyFinalizer())
}

// patchFinalizers applies change to the component's finalizers and, when it
// changed them, sends a merge patch of metadata.finalizers alone (with the
// resourceVersion, so a concurrent change is a conflict). An update would
// send the whole object: the spec's defaulted fields would become the
// operator's and a new component would move to generation 2. The patch is
// written as it is, not diffed from a copy of the component: two
// encodings of the whole component for one list.
func (p *pass) patchFinalizers(ctx context.Context, what string, change func() bool) error {
	if !change() {
		return nil
	}
	var finalizers []string // null removes the list
	if f := p.component.GetFinalizers(); len(f) > 0 {
		finalizers = f
	}
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"finalizers": finalizers, "resourceVersion": p.component.GetResourceVersion(),
	}})
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, p.id, err)
	}
	patch := client.RawPatch(types.MergePatchType, data)
	if err := p.r.client.Patch(ctx, p.component, patch, client.FieldOwner(p.r.opts.FieldOwner)); err != nil {
		return fmt.Errorf("%s %s: %w", what, p.id, err)
	}
	return nil
}

// legacyFinalizer is the finalizer earlier versions set, the operator name,
// or "" when the reconciler is told to use that very name.
func (r *core) legacyFinalizer() string {
	if r.name == r.opts.Finalizer {
		return ""
	}
	return r.name
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
		err = p.patchFinalizers(ctx, "removing the finalizer from", func() bool {
			removed := controllerutil.RemoveFinalizer(p.component, p.r.opts.Finalizer)
			return controllerutil.RemoveFinalizer(p.component, p.r.legacyFinalizer()) || removed
		})
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
