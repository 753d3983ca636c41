package engine

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Diff tells what an Apply of objects would change, without changing
// anything: the same validation, plan and write decisions as Apply, with each
// write sent as a server-side dry run. It makes no request for an object that
// Apply would not write (its digest and live fields match the inventory) and
// one dry run for each other; live objects come from the target's caches.
// Changes are in the order of the plan: every wave (as if each became
// ready), then what would be pruned. Delete hooks are left out.
func (a *Applier) Diff(ctx context.Context, owner Owner, objects []client.Object, inventory []manifests.InventoryItem) ([]Change, error) {
	preview, err := a.Preview(ctx, owner, objects, inventory)
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, s := range preview.Steps {
		if s.Change != nil {
			changes = append(changes, *s.Change)
		}
	}
	return changes, nil
}
