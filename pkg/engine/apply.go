package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Apply brings the cluster to the rendered objects, wave by wave, and prunes
// what left the manifests. It makes one pass: when a wave is not ready yet it
// returns with Done false, and the caller runs it again later (on an event of
// a dependent, or after a requeue). Invalid objects fail the run before any
// write. save is called before objects new to the inventory are created.
func (a *Applier) Apply(ctx context.Context, owner Owner, objects []client.Object, inventory []manifests.InventoryItem, save SaveFunc) (Result, error) {
	p := &preparer{
		prefix: a.opts.Name, namespace: owner.Namespace, generation: owner.Generation,
		defaults: a.defaultsFor(owner), scheme: a.scheme, mapper: a.mapper,
	}
	objs, err := p.prepare(withoutDeleteHooks(objects, a.opts.Name))
	if err != nil {
		return Result{Inventory: inventory}, &manifests.UserError{Err: fmt.Errorf("invalid manifests: %w", err)}
	}
	if objs, err = a.neededNamespaces(ctx, p, objs, inventory); err != nil {
		return Result{Inventory: inventory}, err
	}
	sortForApply(objs)
	run := newApplyRun(a, owner, inventory)
	if run.schedule(objs) {
		if err := save(ctx, run.inventory()); err != nil {
			return Result{Inventory: inventory}, fmt.Errorf("recording the inventory before creating objects: %w", err)
		}
	}
	return run.execute(ctx, planApply(objs, run.items, run.list()), byKey(objs), nil)
}

// byKey indexes desired objects by their key.
func byKey(objs []*desired) map[manifests.ObjectKey]*desired {
	out := make(map[manifests.ObjectKey]*desired, len(objs))
	for _, d := range objs {
		out[d.key] = d
	}
	return out
}

// withoutDeleteHooks leaves out objects that only run on deletion.
func withoutDeleteHooks(objects []client.Object, prefix string) []client.Object {
	return filterDeleteHooks(objects, prefix, false)
}

// DeleteHooks returns the objects that only run on deletion: those with a
// valid <prefix>/delete-hook annotation.
func DeleteHooks(objects []client.Object, prefix string) []client.Object {
	return filterDeleteHooks(objects, prefix, true)
}

// filterDeleteHooks keeps the delete hooks (hooks true) or the other
// objects. An object with an invalid delete-hook value is no hook: it stays
// with the others, whose validation then names the bad value.
func filterDeleteHooks(objects []client.Object, prefix string, hooks bool) []client.Object {
	key := manifests.Key(prefix, manifests.AnnotationDeleteHook)
	out := make([]client.Object, 0, len(objects))
	for _, obj := range objects {
		if manifests.IsDeleteHook(obj.GetAnnotations()[key]) == hooks {
			out = append(out, obj)
		}
	}
	return out
}

// applyRun holds the state of one Apply pass.
type applyRun struct {
	a       *Applier
	owner   Owner
	items   map[manifests.ObjectKey]*manifests.InventoryItem
	order   []manifests.ObjectKey
	waiting []Waiting
	blocked []Blocker
	changed atomic.Bool

	actionsMu sync.Mutex
	actions   []Action
}

func (r *applyRun) record(verb ActionVerb, key manifests.ObjectKey) {
	r.actionsMu.Lock()
	defer r.actionsMu.Unlock()
	r.actions = append(r.actions, Action{Verb: verb, Object: key})
}

func newApplyRun(a *Applier, owner Owner, inventory []manifests.InventoryItem) *applyRun {
	run := &applyRun{a: a, owner: owner, items: map[manifests.ObjectKey]*manifests.InventoryItem{}}
	for i := range inventory {
		item := inventory[i]
		run.items[item.Key()] = &item
		run.order = append(run.order, item.Key())
	}
	return run
}

// schedule adds an item for every object new to the inventory and refreshes
// the policies of known ones; it reports whether items were added.
func (r *applyRun) schedule(objs []*desired) bool {
	added := false
	for _, d := range objs {
		item, ok := r.items[d.key]
		if !ok {
			item = &manifests.InventoryItem{Phase: manifests.PhaseScheduled}
			r.items[d.key] = item
			r.order = append(r.order, d.key)
			added = true
		}
		describe(item, d)
	}
	return added
}

// describe copies identity, policies and orders of d into item. Policies
// that are the built-in defaults are left empty, which keeps the inventory
// of a large component small enough for its status.
func describe(item *manifests.InventoryItem, d *desired) {
	item.Group, item.Version, item.Kind = d.gvk.Group, d.gvk.Version, d.gvk.Kind
	item.Namespace, item.Name = d.key.Namespace, d.key.Name
	builtin := manifests.Defaults{}.WithFallbacks()
	item.AdoptionPolicy = unlessEqual(d.policies.Adoption, builtin.Adoption)
	item.ReconcilePolicy = unlessEqual(d.policies.Reconcile, builtin.Reconcile)
	item.UpdatePolicy = unlessEqual(d.policies.Update, builtin.Update)
	item.DeletePolicy = unlessEqual(d.policies.Delete, builtin.Delete)
	item.DeletePropagation = unlessEqual(d.policies.DeletePropagation, manifests.PropagationBackground)
	item.ApplyOrder = d.policies.ApplyOrder
	item.PurgeOrder = d.policies.PurgeOrder
	item.DeleteOrder = d.policies.DeleteOrder
	item.ManagedTypes = d.managedTypes
}

// unlessEqual returns value, or the zero value when it equals the default.
func unlessEqual[P ~string](value, builtin P) P {
	if value == builtin {
		return ""
	}
	return value
}

// item returns the inventory item of key.
func (r *applyRun) item(key manifests.ObjectKey) *manifests.InventoryItem { return r.items[key] }

// list returns the inventory items in inventory order.
func (r *applyRun) list() []*manifests.InventoryItem {
	out := make([]*manifests.InventoryItem, 0, len(r.order))
	for _, key := range r.order {
		if item, ok := r.items[key]; ok {
			out = append(out, item)
		}
	}
	return out
}

// wait records an object the pass waits for, and why.
func (r *applyRun) wait(key manifests.ObjectKey, reason string) {
	r.waiting = append(r.waiting, Waiting{Object: key, Reason: reason})
}

func (r *applyRun) inventory() []manifests.InventoryItem {
	out := make([]manifests.InventoryItem, 0, len(r.order))
	for _, key := range r.order {
		if item, ok := r.items[key]; ok {
			out = append(out, *item)
		}
	}
	return out
}

func (r *applyRun) result(done bool, wave int16) Result {
	res := Result{Inventory: r.inventory(), Done: done, Wave: wave, Waiting: r.waiting, Changed: r.changed.Load(), Actions: r.actions}
	res.Blocked = r.blocked
	return res
}

func groupByWave(objs []*desired) [][]*desired {
	var waves [][]*desired
	for i, d := range objs {
		if i == 0 || d.policies.ApplyOrder != objs[i-1].policies.ApplyOrder {
			waves = append(waves, nil)
		}
		waves[len(waves)-1] = append(waves[len(waves)-1], d)
	}
	return waves
}

func groupByStage(objs []*desired) [][]*desired {
	var stages [][]*desired
	for i, d := range objs {
		if i == 0 || d.stage != objs[i-1].stage {
			stages = append(stages, nil)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], d)
	}
	return stages
}

func (r *applyRun) markChanged() { r.changed.Store(true) }

// reconcileObject writes one object if it needs it and records its phase and
// readiness in item. It returns what it did, or "" when it wrote nothing.
func (a *Applier) reconcileObject(ctx context.Context, owner Owner, d *desired, item *manifests.InventoryItem) (ActionVerb, error) {
	if (item.Phase == manifests.PhaseCompleted || beingPurged(d, item)) && item.Digest == d.digest {
		return "", nil
	}
	live, err := a.live.get(ctx, d.gvk, d.key)
	if err != nil {
		return "", err
	}
	if live != nil {
		if err := a.checkTakenOver(d, item, live, owner); err != nil {
			item.Phase, item.Status = manifests.PhaseError, err.Error()
			return "", err
		}
		if err := a.checkAdoption(d, live, owner); err != nil {
			item.Phase, item.Status = manifests.PhaseError, err.Error()
			return "", err
		}
	}
	var verb ActionVerb
	if a.needsWrite(d, item, live) {
		verb = ActionUpdated
		if live == nil {
			verb = ActionCreated
		}
		live, err = a.write(ctx, owner, d, live)
		if err != nil {
			return "", fmt.Errorf("applying %s: %w", d.key, err)
		}
		item.Digest = d.digest
		item.LastAppliedAt = 0
		if d.policies.ReapplyInterval > 0 {
			item.LastAppliedAt = a.opts.Now().Unix()
		}
		item.Phase = writePhase(item.Phase)
	}
	hint := d.policies.StatusHint
	if live != nil && !hint.HasObservedGeneration {
		hint.HasObservedGeneration = a.reportsObservedGeneration(ctx, d.gvk)
	}
	recordReadiness(item, live, hint)
	return verb, nil
}

// beingPurged tells whether the object is on its way out at the end of its
// purge wave; it then counts as done for its own wave.
func beingPurged(d *desired, item *manifests.InventoryItem) bool {
	return d.policies.PurgeOrder != nil && item.Phase == manifests.PhaseDeleting
}

// needsWrite decides by reconcile policy, digest, drift and reapply interval.
func (a *Applier) needsWrite(d *desired, item *manifests.InventoryItem, live *unstructured.Unstructured) bool {
	switch {
	case live == nil:
		return true
	case live.GetDeletionTimestamp() != nil:
		return false // being deleted (by us for recreate, or by someone else): wait
	case d.policies.Reconcile == manifests.ReconcileOnce:
		return false
	case item.Digest != d.digest:
		return true
	case d.policies.ReapplyInterval > 0 && a.opts.Now().Unix()-item.LastAppliedAt >= int64(d.policies.ReapplyInterval.Seconds()):
		return true
	}
	return a.drift.drifted(d.key, d.object.Object, live.Object, live.GetResourceVersion())
}

func writePhase(previous manifests.Phase) manifests.Phase {
	if previous == manifests.PhaseScheduled || previous == manifests.PhaseCreating || previous == "" {
		return manifests.PhaseCreating
	}
	return manifests.PhaseUpdating
}

// recordReadiness sets item's status and phase from the live object; nil
// means the object is on its way (being recreated).
func recordReadiness(item *manifests.InventoryItem, live *unstructured.Unstructured, hint manifests.StatusHint) {
	if live == nil {
		item.Status = "waiting for the old object to be deleted"
		return
	}
	r := computeReadiness(live, hint)
	item.Status = string(r.Status)
	if r.Message != "" && !r.ready() {
		item.Status += ": " + r.Message
	}
	switch {
	case r.ready():
		item.Phase, item.Status = manifests.PhaseReady, "" // Ready says Current
	case r.failed():
		item.Phase = manifests.PhaseError
	case item.Phase == manifests.PhaseReady || item.Phase == manifests.PhaseError:
		item.Phase = manifests.PhaseUpdating
	}
}
