package component

import (
	"context"
	"fmt"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// orphansOnDelete tells whether the component's own annotation
// <operator name>/delete-policy asks to leave its objects as they are when it
// is deleted: the way out for a component whose target cluster is gone (or
// whose identity may no longer delete there), since deletion otherwise waits
// for that cluster.
func (p *pass) orphansOnDelete() (bool, error) {
	key := manifests.Key(p.r.name, manifests.AnnotationDeletePolicy)
	value, ok := p.component.GetAnnotations()[key]
	if !ok {
		return false, nil
	}
	switch manifests.DeletePolicy(value) {
	case manifests.DeleteOrphan, manifests.DeleteOrphanOnDelete:
		return true, nil
	case manifests.DeleteDefault, manifests.DeleteDelete:
		return false, nil
	}
	return false, &manifests.UserError{Err: fmt.Errorf("%s: annotation %s has invalid value %q (allowed: %s, %s, %s, %s)",
		p.id, key, value, manifests.DeleteOrphan, manifests.DeleteOrphanOnDelete, manifests.DeleteDefault, manifests.DeleteDelete)}
}

// orphanAll ends the deletion without contacting the target: the objects in
// the inventory stay as they are, with their owner label, and an event says
// how many were left.
func (p *pass) orphanAll(ctx context.Context) outcome.Outcome {
	left := len(p.component.GetStatus().Inventory)
	if p.r.recorder != nil {
		p.r.recorder.Eventf(p.component, nil, "Warning", "Orphaned", "Delete",
			"deleted without contacting the target: %d objects left as they are (annotation %s)",
			left, manifests.Key(p.r.name, manifests.AnnotationDeletePolicy))
	}
	p.component.GetStatus().Inventory = nil
	return p.removeFinalizer(ctx, "objects left as they are; removing the finalizer")
}
