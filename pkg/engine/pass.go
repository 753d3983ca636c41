package engine

import (
	"slices"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// pass holds the state of one pass of Apply or Delete: the inventory it
// works on, in inventory order, and what the pass did so far. Steps do not
// write into it: they return outcomes, and settle applies the outcomes of a
// group in plan order.
type pass struct {
	s       *ownerScope
	items   map[manifests.ObjectKey]*manifests.InventoryItem
	order   []manifests.ObjectKey
	waiting []Waiting
	blocked []Blocker
	actions []ObjectAction
	changed bool
	// recheck: the pass waits for an object no event will announce.
	recheck bool
	// progress is what the pass saw of the progress of objects in
	// progress, reported with the waits for them (outcome.progress).
	progress map[manifests.ObjectKey]string
	// externalDrift is the drift the owner's Externals left (drift mode
	// Warn).
	externalDrift []Drift
}

func newPass(s *ownerScope, inventory []manifests.InventoryItem) *pass {
	r := &pass{s: s, items: make(map[manifests.ObjectKey]*manifests.InventoryItem, len(inventory)), order: make([]manifests.ObjectKey, len(inventory))}
	copies := slices.Clone(inventory) // one allocation, not one an item
	for i := range copies {
		r.order[i] = copies[i].Key()
		r.items[r.order[i]] = &copies[i]
	}
	return r
}

// schedule adds an item for every object new to the inventory and refreshes
// the policies of known ones; it reports whether items were added.
func (r *pass) schedule(objs []*plan.Desired) bool {
	added := false
	for _, d := range objs {
		item, ok := r.items[d.Key]
		if !ok {
			item = &manifests.InventoryItem{Phase: manifests.PhaseScheduled}
			r.items[d.Key] = item
			r.order = append(r.order, d.Key)
			added = true
		}
		describe(item, d)
	}
	return added
}

// describe copies identity, policies and orders of d into item. Policies
// that are the built-in defaults are left empty, which keeps the inventory
// of a large component small enough for its status.
func describe(item *manifests.InventoryItem, d *plan.Desired) {
	item.Group, item.Version, item.Kind = d.GVK.Group, d.GVK.Version, d.GVK.Kind
	item.Namespace, item.Name = d.Key.Namespace, d.Key.Name
	builtin := manifests.Defaults{}.WithFallbacks()
	item.AdoptionPolicy = unlessEqual(d.Policies.Adoption, builtin.Adoption)
	item.ReconcilePolicy = unlessEqual(d.Policies.Reconcile, builtin.Reconcile)
	item.UpdatePolicy = unlessEqual(d.Policies.Update, builtin.Update)
	item.DeletePolicy = unlessEqual(d.Policies.Delete, builtin.Delete)
	item.DeletePropagation = unlessEqual(d.Policies.DeletePropagation, manifests.PropagationBackground)
	item.ApplyOrder = d.Policies.ApplyOrder
	item.PurgeOrder = d.Policies.PurgeOrder
	item.DeleteOrder = d.Policies.DeleteOrder
	item.ManagedTypes = d.ManagedTypes
	item.DeleteHook = d.Policies.DeleteHook
	item.TestHook = d.Policies.TestHook
}

// unlessEqual returns value, or the zero value when it equals the default.
func unlessEqual[P ~string](value, builtin P) P {
	if value == builtin {
		return ""
	}
	return value
}

// item returns the inventory item of key.
func (r *pass) item(key manifests.ObjectKey) *manifests.InventoryItem { return r.items[key] }

// list returns the inventory items in inventory order.
func (r *pass) list() []*manifests.InventoryItem {
	out := make([]*manifests.InventoryItem, 0, len(r.order))
	for _, key := range r.order {
		if item, ok := r.items[key]; ok {
			out = append(out, item)
		}
	}
	return out
}

// inventory returns a copy of the inventory, in inventory order.
func (r *pass) inventory() []manifests.InventoryItem {
	out := make([]manifests.InventoryItem, 0, len(r.order))
	for _, key := range r.order {
		if item, ok := r.items[key]; ok {
			out = append(out, *item)
		}
	}
	return out
}

// result is the Result of the pass so far; a zero stop means it is done.
func (r *pass) result(stop Stop) Result {
	return Result{
		Inventory: r.inventory(), Done: stop.Step == GroupNone, Wave: api.ApplyWave(stop), Stopped: stop,
		Waiting: r.waiting, Recheck: r.recheck, Changed: r.changed, Actions: r.actions, Blocked: r.blocked,
		Drifted: append(r.s.drifts.List(), r.externalDrift...),
	}
}

// settle applies the outcomes of a group's steps, in plan order, to the
// inventory and to what the pass did; it returns their errors joined.
func (r *pass) settle(outs []plan.Outcome) error {
	s := plan.Settle(r.items, outs)
	r.actions = append(r.actions, s.Actions...)
	r.waiting = append(r.waiting, s.Waiting...)
	r.blocked = append(r.blocked, s.Blocked...)
	r.changed = r.changed || s.Changed
	r.recheck = r.recheck || s.Recheck
	for key, p := range s.Progress {
		if r.progress == nil {
			r.progress = map[manifests.ObjectKey]string{}
		}
		r.progress[key] = p
	}
	return s.Err
}
