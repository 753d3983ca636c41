package manifests

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// deletionMode says which orphan policies apply: pruning on apply or
// deleting the whole component.
type deletionMode int

const (
	onApply deletionMode = iota
	onDelete
)

func (m deletionMode) orphans(p DeletePolicy) bool {
	switch p {
	case DeleteOrphan:
		return true
	case DeleteOrphanOnApply:
		return m == onApply
	case DeleteOrphanOnDelete:
		return m == onDelete
	}
	return false
}

// Delete removes every object of the inventory in delete-order waves:
// managed instances first, CRDs and Namespaces last. It does not start while
// foreign instances of the component's managed types exist. One pass, like
// Apply: call it again until Done.
func (a *Applier) Delete(ctx context.Context, owner Owner, inventory []InventoryItem) (Result, error) {
	return a.DeleteWithHooks(ctx, owner, inventory, nil, nil)
}

// DeleteWithHooks is Delete that also runs the delete hooks among objects
// (objects annotated <name>/delete-hook; others are ignored): in each delete
// wave, the wave's hooks are applied and must be ready before the wave's
// objects are deleted; then they are deleted too, unless their delete policy
// orphans them. save records hooks in the inventory before they are created.
func (a *Applier) DeleteWithHooks(ctx context.Context, owner Owner, inventory []InventoryItem, objects []client.Object, save SaveFunc) (Result, error) {
	types := managedTypesOfItems(inventory, append(slices.Clone(a.opts.AdditionalManagedTypes), owner.AdditionalManagedTypes...))
	blocking, err := a.foreignInstances(ctx, types, owner)
	if err != nil {
		return Result{Inventory: inventory}, err
	}
	if len(blocking) > 0 {
		return Result{Inventory: inventory, Blocked: describeBlocking(blocking)}, nil
	}
	run := newApplyRun(a, owner, inventory)
	hooks, err := run.scheduleHooks(ctx, objects, save)
	if err != nil {
		return Result{Inventory: inventory}, err
	}
	all := make([]*InventoryItem, 0, len(run.order))
	for _, key := range run.order {
		all = append(all, run.items[key])
	}
	done, err := run.deleteInWaves(ctx, all, onDelete, hooks)
	if done {
		run.dropCompletedHooks()
	}
	return run.result(done, 0), err
}

// prune deletes the inventory items that are no longer rendered.
func (r *applyRun) prune(ctx context.Context, objs []*desired) (bool, error) {
	rendered := make(map[ObjectKey]bool, len(objs))
	for _, d := range objs {
		rendered[d.key] = true
	}
	var obsolete []*InventoryItem
	for _, key := range r.order {
		if !rendered[key] && r.items[key].DeleteHook == "" {
			obsolete = append(obsolete, r.items[key])
		}
	}
	if len(obsolete) == 0 {
		return true, nil
	}
	return r.deleteInWaves(ctx, obsolete, onApply, nil)
}

// deleteInWaves deletes items wave by wave and stage by stage (in reverse
// stage order), stopping at the first stage that is not gone yet. A wave's
// delete hooks run before its objects are deleted.
func (r *applyRun) deleteInWaves(ctx context.Context, items []*InventoryItem, mode deletionMode, hooks map[ObjectKey]*desired) (bool, error) {
	served := managedTypesOfItems(r.inventory(), nil)
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].DeleteOrder != items[j].DeleteOrder {
			return items[i].DeleteOrder < items[j].DeleteOrder
		}
		return deletionStage(items[i], served) > deletionStage(items[j], served)
	})
	for start := 0; start < len(items); {
		if items[start].DeleteHook != "" {
			done, err := r.runHook(ctx, items[start], hooks[items[start].Key()])
			if err != nil || !done {
				return false, err
			}
			start++
			continue
		}
		end := start
		for end < len(items) && items[end].DeleteOrder == items[start].DeleteOrder && items[end].DeleteHook == "" &&
			deletionStage(items[end], served) == deletionStage(items[start], served) {
			end++
		}
		done, err := r.deleteGroup(ctx, items[start:end], mode)
		if err != nil || !done {
			return false, err
		}
		start = end
	}
	return true, nil
}

func deletionStage(item *InventoryItem, served []TypeInfo) stage {
	if item.DeleteHook != "" {
		return stageManagedInstances + 1 // a wave's hooks run before its objects go
	}
	if matchesAny(served, item.Group, item.Kind) {
		return stageManagedInstances
	}
	return stageOf(item.Group, item.Kind)
}

// deleteGroup deletes (or orphans) items of one wave and stage; it reports
// whether all of them are gone from the inventory.
func (r *applyRun) deleteGroup(ctx context.Context, items []*InventoryItem, mode deletionMode) (bool, error) {
	done := true
	for _, item := range items {
		if mode.orphans(item.DeletePolicy) {
			if err := r.a.release(ctx, r.owner, item); err != nil {
				return false, err
			}
			r.drop(item)
			r.record(ActionOrphaned, item.Key())
			continue
		}
		if mode == onApply && item.ManagedTypes != nil {
			blocking, err := r.a.foreignInstances(ctx, item.ManagedTypes, r.owner)
			if err != nil {
				return false, err
			}
			if len(blocking) > 0 {
				r.blocked = append(r.blocked, fmt.Sprintf("%s is kept: %s", item, describeBlocking(blocking)))
				continue
			}
		}
		gone, err := r.a.deleteObject(ctx, r.owner, item)
		if err != nil {
			return false, fmt.Errorf("deleting %s: %w", item, err)
		}
		if gone {
			r.drop(item)
			r.record(goneVerb(item), item.Key())
			continue
		}
		r.markChanged()
		item.Phase = PhaseDeleting
		r.waiting = append(r.waiting, fmt.Sprintf("%s: being deleted", item))
		done = false
	}
	return done, nil
}

// goneVerb says what made an object gone: this owner's delete request of an
// earlier pass (the item is Deleting), or nothing this owner did.
func goneVerb(item *InventoryItem) ActionVerb {
	if item.Phase == PhaseDeleting {
		return ActionDeleted
	}
	return ActionLeft
}

func (r *applyRun) drop(item *InventoryItem) {
	key := item.Key()
	delete(r.items, key)
	r.order = slices.DeleteFunc(r.order, func(k ObjectKey) bool { return k == key })
	r.markChanged()
}

// deleteObject deletes the object of item unless it is already being
// deleted, and reports whether it is gone. An object that carries another
// owner's label (or none) is not this owner's to delete: for this owner it
// is gone.
func (a *Applier) deleteObject(ctx context.Context, owner Owner, item *InventoryItem) (bool, error) {
	key := item.Key()
	live, err := a.live.get(ctx, item.GroupVersionKind(), key)
	if meta.IsNoMatchError(err) {
		return true, nil // its type is no longer served, so it cannot exist
	}
	if err != nil {
		return false, err
	}
	if live == nil || live.GetLabels()[a.OwnerLabel()] != owner.ID {
		a.drift.forget(key)
		return true, nil
	}
	if live.GetDeletionTimestamp() != nil {
		return false, nil
	}
	if err := a.deleteLive(ctx, live); err != nil {
		return false, err
	}
	a.live.deleted(key, live.GetUID())
	return false, nil
}

// release removes the owner label and annotation from an orphaned object so
// that another owner may adopt it; an object this owner does not hold is
// left as it is.
func (a *Applier) release(ctx context.Context, owner Owner, item *InventoryItem) error {
	live, err := a.live.get(ctx, item.GroupVersionKind(), item.Key())
	if err != nil {
		return err
	}
	if live == nil || live.GetLabels()[a.OwnerLabel()] != owner.ID {
		return nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(item.GroupVersionKind())
	obj.SetNamespace(item.Namespace)
	obj.SetName(item.Name)
	patch := map[string]any{"metadata": map[string]any{
		"labels":      map[string]any{a.OwnerLabel(): nil},
		"annotations": map[string]any{a.ownerAnnotation(): nil},
	}}
	data, err := jsonMarshal(patch)
	if err != nil {
		return err
	}
	err = a.target.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data))
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("orphaning %s: %w", item, err)
	}
	a.live.forget(item.Key())
	a.drift.forget(item.Key())
	return nil
}

func managedTypesOfItems(items []InventoryItem, extra []TypeInfo) []TypeInfo {
	types := slices.Clone(extra)
	for _, item := range items {
		types = append(types, item.ManagedTypes...)
	}
	return types
}

// matchesAny reports whether group and kind match one of the types; a type's
// Kind may be "*" and its Group "*" or "*.suffix".
func matchesAny(types []TypeInfo, group, kind string) bool {
	for _, t := range types {
		if (t.Kind == "*" || t.Kind == kind) && groupMatches(t.Group, group) {
			return true
		}
	}
	return false
}

func groupMatches(pattern, group string) bool {
	switch {
	case pattern == "*":
		return true
	case strings.HasPrefix(pattern, "*."):
		return strings.HasSuffix(group, pattern[1:])
	}
	return pattern == group
}
