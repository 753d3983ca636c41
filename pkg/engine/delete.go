package engine

import (
	"context"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/foreign"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
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
	run, p, hooks, blocking, err := a.planDeletePass(ctx, owner, inventory, opts)
	if err != nil {
		return Result{Inventory: inventory}, err
	}
	if len(blocking) > 0 {
		return Result{Inventory: inventory, Blocked: []Blocker{{Reason: foreign.Describe(blocking)}}}, nil
	}
	res, err := run.execute(ctx, p, nil, hooks)
	if res.Done {
		run.dropCompletedHooks()
		res = run.result(Stop{})
	}
	return res, err
}

// planDeletePass looks for foreign instances of the component's managed
// types (their counts by type, which block the deletion), schedules the
// delete hooks and plans the deletion, in the span "plan", as
// planApplyPass does for Apply.
func (a *Applier) planDeletePass(ctx context.Context, owner Owner, inventory []manifests.InventoryItem, opts DeleteOptions) (*pass, plan.Plan, map[manifests.ObjectKey]*plan.Desired, map[string]int, error) {
	ctx, span := startSpan(ctx, "plan")
	types := managedTypesOfItems(inventory, append(slices.Clone(a.opts.AdditionalManagedTypes), owner.AdditionalManagedTypes...))
	scope := a.scopeFor(owner)
	blocking, err := scope.foreignInstances(ctx, types)
	if err != nil || len(blocking) > 0 {
		spans.End(span, err)
		return nil, plan.Plan{}, nil, blocking, err
	}
	run := newPass(scope, inventory)
	hooks, err := run.scheduleHooks(ctx, opts.Hooks, opts.Save)
	if err != nil {
		spans.End(span, err)
		return nil, plan.Plan{}, nil, nil, err
	}
	served := managedTypesOfItems(run.inventory(), nil)
	p := plan.WithExternals(plan.Deletion(run.list(), served, plan.OnDelete), planExternals(owner.Externals, true).Waves, ActionDelete, false)
	if span.IsRecording() {
		span.SetAttributes(attrObjects.Int(len(inventory)), attrGroups.Int(len(p.Groups)))
	}
	spans.End(span, nil)
	return run, p, hooks, nil, nil
}

func managedTypesOfItems(items []manifests.InventoryItem, extra []manifests.TypeInfo) []manifests.TypeInfo {
	types := slices.Clone(extra)
	for _, item := range items {
		types = append(types, item.ManagedTypes...)
	}
	return types
}
