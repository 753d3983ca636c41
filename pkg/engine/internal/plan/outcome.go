package plan

import (
	"errors"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Outcome is what one step did to its object: what it wrote or removed, the
// phase and status the object reached, why the pass waits for it, or why it
// failed. Steps return outcomes; only settle writes them into the inventory.
type Outcome struct {
	Key manifests.ObjectKey
	// Action is what was done to the object; "" when nothing was.
	Action api.Action
	// Detail says why action was done; "" mostly.
	Detail string
	// Corrected: the write undid what others did (a drift, a deletion).
	Corrected bool
	// Phase is the item's new phase; "" keeps the phase.
	Phase manifests.Phase
	// Status is the item's new status when setStatus is true.
	Status    string
	SetStatus bool
	// Progress is what the object's status says of its progress while it is
	// in progress ("Available: 1/2"): reported with a wait, never stored in
	// the item, so that each replica rolled out is not a status write.
	Progress string
	// Written records a write of digest at appliedAt (0: no reapply).
	Written   bool
	Digest    string
	AppliedAt int64
	// Ran is the item's new Ran when setRan is true: whether a run-once
	// object ran at the item's digest (the engine's runonce.go).
	Ran    bool
	SetRan bool
	// Drop removes the item from the inventory.
	Drop bool
	// Waiting is why the pass waits for the object; "" when it does not.
	Waiting string
	// Blocked is why the object is kept; "" when it is not.
	Blocked string
	// Changed says the pass changed something for this object; a drop
	// always does.
	Changed bool
	// Unwatched says that the pass waits for an object its cache does not
	// hold (it may carry another shard's label), so that no event may tell
	// when it changes: one it deleted to create it again, or a run-once
	// object that still runs (Result.Recheck).
	Unwatched bool
	Err       error
}

// settlement is what settle did with the outcomes of one group.
type settlement struct {
	Actions []api.ObjectAction
	Waiting []api.Waiting
	Blocked []api.Blocker
	// Progress is the outcomes' progress by object, for a wait later in
	// the pass.
	Progress map[manifests.ObjectKey]string
	Changed  bool
	// Recheck: an outcome was unwatched.
	Recheck bool
	Err     error
}

// Settle writes outs into items in the order given (plan order) and
// collects the actions, waiting objects, blockers and errors they report.
// An outcome of an object no longer in items only reports.
func Settle(items map[manifests.ObjectKey]*manifests.InventoryItem, outs []Outcome) settlement {
	var s settlement
	var errs []error
	for _, o := range outs {
		if item := items[o.Key]; item != nil {
			settleItem(item, o)
		}
		if o.Drop {
			delete(items, o.Key)
		}
		if o.Action != "" {
			s.Actions = append(s.Actions, api.ObjectAction{Object: o.Key, Action: o.Action, Detail: o.Detail, Corrected: o.Corrected})
		}
		if o.Waiting != "" {
			s.Waiting = append(s.Waiting, api.Waiting{Object: o.Key, Reason: o.Waiting, Progress: o.Progress})
		}
		if o.Progress != "" {
			if s.Progress == nil {
				s.Progress = map[manifests.ObjectKey]string{}
			}
			s.Progress[o.Key] = o.Progress
		}
		if o.Blocked != "" {
			s.Blocked = append(s.Blocked, api.Blocker{Object: o.Key, Reason: o.Blocked})
		}
		s.Changed = s.Changed || o.Changed || o.Drop
		s.Recheck = s.Recheck || o.Unwatched
		if o.Err != nil {
			errs = append(errs, o.Err)
		}
	}
	s.Err = errors.Join(errs...)
	return s
}

// settleItem writes one outcome into its inventory item.
func settleItem(item *manifests.InventoryItem, o Outcome) {
	if o.Written {
		item.Digest, item.LastAppliedAt = o.Digest, o.AppliedAt
	}
	if o.Phase != "" {
		item.Phase = o.Phase
	}
	if o.SetStatus {
		item.Status = o.Status
	}
	if o.SetRan {
		item.Ran = o.Ran
	}
}

// WaitingReason is the Reason of a Waiting for item: its phase and, when it
// has one, its status ("Updating, InProgress").
func WaitingReason(item *manifests.InventoryItem) string {
	if item.Status == "" {
		return string(item.Phase)
	}
	return string(item.Phase) + ", " + item.Status
}
