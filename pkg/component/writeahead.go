package component

import (
	"context"
	"errors"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// errWrittenAhead ends a pass once it has written new inventory items
// ahead of their objects. A Reconcile writes the status once: the next one,
// which starts at once, creates the objects and reports what they do.
var errWrittenAhead = errors.New("the inventory was written ahead of its objects")

// writeAhead records new inventory items before the applier creates them,
// as the Reconcile's one status write, and ends the pass (errWrittenAhead),
// so that a crash never leaves an object the inventory does not list. It
// returns nil when nothing was written.
func (sr *statusRecorder[T]) writeAhead(ctx context.Context, items []manifests.InventoryItem) error {
	status := sr.component.GetStatus()
	status.Inventory = items
	if sr.component.GetDeletionTimestamp() != nil {
		status.setReady(sr.component.GetGeneration(), ReasonDeleting, "running delete hooks", false)
	} else {
		status.setReady(sr.component.GetGeneration(), ReasonProcessing, "creating objects", false)
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
	return errWrittenAhead
}

// nextPassNow is how soon the Reconcile after one that wrote ahead starts:
// a status write sends the reconciler no event.
const nextPassNow = time.Millisecond

// continued is the outcome of a Reconcile that wrote the status ahead of a
// pass: the status as written, and the next Reconcile at once.
func continued(written *Status) outcome {
	o := outcome{reason: ReasonProcessing, requeue: nextPassNow}
	if c := written.ReadyCondition(); c != nil {
		o.reason, o.message = c.Reason, c.Message
	}
	return o
}
