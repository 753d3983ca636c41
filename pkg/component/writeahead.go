package component

import (
	"context"

	"github.com/wavekit-dev/wavekit/internal/plant"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// writeAhead records new inventory items before the applier creates them,
// as the Reconcile's one status write, and ends the pass (errWrittenAhead),
// so that a crash never leaves an object the inventory does not list. It
// returns nil when nothing was written.
func (sr *statusRecorder) writeAhead(ctx context.Context, items []manifests.InventoryItem) error {
	if plant.Active(plant.SkipWriteAhead) {
		return nil // planted: the objects are created before the inventory lists them
	}
	status := sr.component.GetStatus()
	status.Inventory = items
	if sr.component.GetDeletionTimestamp() != nil {
		conditions.SetReady(status, sr.component.GetGeneration(), ReasonDeleting, "running delete hooks", false)
	} else {
		conditions.SetReady(status, sr.component.GetGeneration(), ReasonProcessing, "creating objects", false)
	}
	version := sr.component.GetResourceVersion()
	if err := sr.writeStatus(ctx); err != nil {
		return err
	}
	if sr.component.GetResourceVersion() == version {
		// Nothing was written (a CRD that drops the inventory): ending the
		// pass would only start the same one again, at once, for ever.
		return nil
	}
	sr.wroteAhead = true
	return outcome.ErrWrittenAhead
}

// writeAhead writes the status ahead of the pass's new objects
// (statusRecorder.writeAhead); the Reconcile after, which creates them,
// applies the same current render.
func (p *pass) writeAhead(ctx context.Context, items []manifests.InventoryItem) error {
	return p.status.writeAhead(ctx, items)
}
