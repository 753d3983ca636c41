package engine

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// Apply brings the cluster to the rendered objects, wave by wave, and prunes
// what left the manifests. It makes one pass: when a wave is not ready yet it
// returns with Done false, and the caller runs it again later (on an event of
// a dependent, or after a requeue). Invalid objects fail the run before any
// write. save is called before objects new to the inventory are created.
func (a *Applier) Apply(ctx context.Context, owner Owner, objects []client.Object, inventory []manifests.InventoryItem, save SaveFunc) (Result, error) {
	run, objs, p, added, err := a.planApplyPass(ctx, owner, objects, inventory)
	if err != nil {
		return Result{Inventory: inventory}, err
	}
	if added {
		if err := save(ctx, run.inventory()); err != nil {
			return Result{Inventory: inventory}, fmt.Errorf("recording the inventory before creating objects: %w", err)
		}
	}
	return run.execute(ctx, p, plan.ByKey(objs), nil)
}

// planApplyPass begins an apply pass (begin) and plans it, in the span
// "plan": what it reads of the cluster to prepare the objects (namespaces,
// CRDs) and the pure planning.
func (a *Applier) planApplyPass(ctx context.Context, owner Owner, objects []client.Object, inventory []manifests.InventoryItem) (*pass, []*plan.Desired, plan.Plan, bool, error) {
	ctx, span := startSpan(ctx, "plan")
	run, objs, added, err := a.scopeFor(owner).begin(ctx, objects, inventory)
	if err != nil {
		spans.End(span, err)
		return nil, nil, plan.Plan{}, false, err
	}
	p := plan.Apply(objs, run.items, run.list(), planExternals(owner.Externals, false))
	if span.IsRecording() {
		span.SetAttributes(attrObjects.Int(len(objs)), attrGroups.Int(len(p.Groups)))
	}
	spans.End(span, nil)
	return run, objs, p, added, nil
}
