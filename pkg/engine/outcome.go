package engine

import (
	"errors"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// outcome is what one step did to its object: what it wrote or removed, the
// phase and status the object reached, why the pass waits for it, or why it
// failed. Steps return outcomes; only settle writes them into the inventory.
type outcome struct {
	key manifests.ObjectKey
	// action is what was done to the object; "" when nothing was.
	action Action
	// detail says why action was done; "" mostly.
	detail string
	// corrected: the write undid what others did (a drift, a deletion).
	corrected bool
	// phase is the item's new phase; "" keeps the phase.
	phase manifests.Phase
	// status is the item's new status when setStatus is true.
	status    string
	setStatus bool
	// progress is what the object's status says of its progress while it is
	// in progress ("Available: 1/2"): reported with a wait, never stored in
	// the item, so that each replica rolled out is not a status write.
	progress string
	// written records a write of digest at appliedAt (0: no reapply).
	written   bool
	digest    string
	appliedAt int64
	// ran is the item's new Ran when setRan is true: whether a run-once
	// object ran at the item's digest (runonce.go).
	ran    bool
	setRan bool
	// drop removes the item from the inventory.
	drop bool
	// waiting is why the pass waits for the object; "" when it does not.
	waiting string
	// blocked is why the object is kept; "" when it is not.
	blocked string
	// changed says the pass changed something for this object; a drop
	// always does.
	changed bool
	// unwatched says that the pass waits for an object its cache does not
	// hold (it may carry another shard's label), so that no event may tell
	// when it changes: one it deleted to create it again, or a run-once
	// object that still runs (Result.Recheck).
	unwatched bool
	err       error
}

// settlement is what settle did with the outcomes of one group.
type settlement struct {
	actions []ObjectAction
	waiting []Waiting
	blocked []Blocker
	// progress is the outcomes' progress by object, for a wait later in
	// the pass.
	progress map[manifests.ObjectKey]string
	changed  bool
	// recheck: an outcome was unwatched.
	recheck bool
	err     error
}

// settle writes outs into items in the order given (plan order) and
// collects the actions, waiting objects, blockers and errors they report.
// An outcome of an object no longer in items only reports.
func settle(items map[manifests.ObjectKey]*manifests.InventoryItem, outs []outcome) settlement {
	var s settlement
	var errs []error
	for _, o := range outs {
		if item := items[o.key]; item != nil {
			settleItem(item, o)
		}
		if o.drop {
			delete(items, o.key)
		}
		if o.action != "" {
			s.actions = append(s.actions, ObjectAction{Object: o.key, Action: o.action, Detail: o.detail, Corrected: o.corrected})
		}
		if o.waiting != "" {
			s.waiting = append(s.waiting, Waiting{Object: o.key, Reason: o.waiting, Progress: o.progress})
		}
		if o.progress != "" {
			if s.progress == nil {
				s.progress = map[manifests.ObjectKey]string{}
			}
			s.progress[o.key] = o.progress
		}
		if o.blocked != "" {
			s.blocked = append(s.blocked, Blocker{Object: o.key, Reason: o.blocked})
		}
		s.changed = s.changed || o.changed || o.drop
		s.recheck = s.recheck || o.unwatched
		if o.err != nil {
			errs = append(errs, o.err)
		}
	}
	s.err = errors.Join(errs...)
	return s
}

// settleItem writes one outcome into its inventory item.
func settleItem(item *manifests.InventoryItem, o outcome) {
	if o.written {
		item.Digest, item.LastAppliedAt = o.digest, o.appliedAt
	}
	if o.phase != "" {
		item.Phase = o.phase
	}
	if o.setStatus {
		item.Status = o.status
	}
	if o.setRan {
		item.Ran = o.ran
	}
}

// waitingReason is the Reason of a Waiting for item: its phase and, when it
// has one, its status ("Updating, InProgress").
func waitingReason(item *manifests.InventoryItem) string {
	if item.Status == "" {
		return string(item.Phase)
	}
	return string(item.Phase) + ", " + item.Status
}
