package engine

import (
	"context"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// DeleteOptions tune Delete.
type DeleteOptions struct {
	// Hooks are the rendered objects of the component; Delete runs the
	// delete hooks among them (objects annotated <name>/delete-hook) and
	// ignores the others. Without them, no hook runs.
	Hooks []client.Object
	// Save records delete hooks in the inventory before they are created;
	// it is required with Hooks.
	Save SaveFunc
}

// Delete removes every object of the inventory in delete-order waves:
// managed instances first, CRDs and Namespaces last. It does not start while
// foreign instances of the component's managed types exist. In each delete
// wave, the wave's delete hooks are applied and must be ready before the
// wave's objects are deleted; then they are deleted too, unless their delete
// policy orphans them. One pass, like Apply: call it again until Done.
func (a *Applier) Delete(ctx context.Context, owner Owner, inventory []manifests.InventoryItem, opts DeleteOptions) (Result, error) {
	types := managedTypesOfItems(inventory, append(slices.Clone(a.opts.AdditionalManagedTypes), owner.AdditionalManagedTypes...))
	scope := a.scopeFor(owner)
	blocking, err := scope.foreignInstances(ctx, types)
	if err != nil {
		return Result{Inventory: inventory}, err
	}
	if len(blocking) > 0 {
		return Result{Inventory: inventory, Blocked: []Blocker{{Reason: describeBlocking(blocking)}}}, nil
	}
	run := newPass(scope, inventory)
	hooks, err := run.scheduleHooks(ctx, opts.Hooks, opts.Save)
	if err != nil {
		return Result{Inventory: inventory}, err
	}
	served := managedTypesOfItems(run.inventory(), nil)
	p := withExternals(planDeletion(run.list(), served, onDelete), planExternals(owner.Externals, true).waves, ActionDelete, false)
	res, err := run.execute(ctx, p, nil, hooks)
	if res.Done {
		run.dropCompletedHooks()
		res = run.result(Stop{})
	}
	return res, err
}

func managedTypesOfItems(items []manifests.InventoryItem, extra []manifests.TypeInfo) []manifests.TypeInfo {
	types := slices.Clone(extra)
	for _, item := range items {
		types = append(types, item.ManagedTypes...)
	}
	return types
}
