package engine

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Change is what Apply would do to one object.
type Change struct {
	Object manifests.ObjectKey
	// Action is the one a pass would take: Created, Updated, Deleted,
	// Orphaned or Unchanged.
	Action ActionVerb
	// Live is the object in the cluster; nil when there is none.
	Live *unstructured.Unstructured
	// Result is the object as the API server would store it after Apply's
	// write (a server-side dry run of that very write); nil for deletions.
	Result *unstructured.Unstructured
	// Note says why the result was not validated, or how it is written.
	Note string
}

// Diff tells what an Apply of objects would change, without changing
// anything: the same validation, plan and write decisions as Apply, with each
// write sent as a server-side dry run. It makes no request for an object that
// Apply would not write (its digest and live fields match the inventory) and
// one dry run for each other; live objects come from the target's caches.
// Changes are in the order of the plan: every wave (as if each became
// ready), then what would be pruned. Delete hooks are left out.
func (a *Applier) Diff(ctx context.Context, owner Owner, objects []client.Object, inventory []manifests.InventoryItem) ([]Change, error) {
	run, objs, _, err := a.begin(ctx, owner, objects, inventory)
	if err != nil {
		return nil, err
	}
	desired := byKey(objs)
	dry := a.dryRun()
	var changes []Change
	for _, g := range planApply(objs, run.items, run.list()).groups {
		for _, s := range g.steps {
			change, err := dry.change(ctx, owner, s, desired[s.key], run.item(s.key))
			if err != nil {
				return nil, err
			}
			if change != nil {
				changes = append(changes, *change)
			}
		}
	}
	return changes, nil
}

// dryRun returns a copy of the applier whose writes are server-side dry runs
// and leave its caches alone.
func (a *Applier) dryRun() *Applier {
	dry := *a
	dry.target.Client = client.NewDryRunClient(a.target.Client)
	dry.target.deleter = nil // its requests are real: deletes go through the dry-run client
	dry.dryRunOnly = true
	return &dry
}

// change returns what the step would do, or nil for steps that change nothing
// of their own (waits, purges, objects already gone).
func (a *Applier) change(ctx context.Context, owner Owner, s step, d *desired, item *manifests.InventoryItem) (*Change, error) {
	switch s.action {
	case stepApply:
		return a.applyChange(ctx, owner, d, item)
	case stepKeep:
		return &Change{Object: s.key, Action: ActionUnchanged, Note: s.reason}, nil
	case stepPrune, stepOrphan:
		return a.deletionChange(ctx, s, item)
	}
	return nil, nil
}

func (a *Applier) applyChange(ctx context.Context, owner Owner, d *desired, item *manifests.InventoryItem) (*Change, error) {
	change := &Change{Object: d.key, Action: ActionCreated}
	live, err := a.live.get(ctx, d.gvk, d.key)
	if meta.IsNoMatchError(err) {
		change.Result, change.Note = a.marked(d, owner), "not validated: the cluster does not serve "+d.gvk.Kind+" yet"
		return change, nil
	}
	if err != nil {
		return nil, err
	}
	if live != nil {
		change.Action, change.Live = ActionUpdated, live
	}
	write, err := a.decide(owner, d, item, live)
	if err != nil {
		return nil, err
	}
	if !write {
		return &Change{Object: d.key, Action: ActionUnchanged, Live: live}, nil
	}
	result, err := a.write(ctx, owner, d, live)
	switch {
	case apierrors.IsNotFound(err) && live == nil && d.key.Namespace != "":
		result, change.Note = a.marked(d, owner), "not validated: namespace "+d.key.Namespace+" does not exist yet"
	case err != nil:
		return nil, objectError("dry run of applying", d.key, err)
	case result == nil:
		// A recreate: the dry-run delete changed nothing, so show the object it creates.
		result, change.Note = a.marked(d, owner), "recreated: "+string(d.policies.Update)+" policy"
	}
	change.Result = result
	return change, nil
}

func (a *Applier) deletionChange(ctx context.Context, s step, item *manifests.InventoryItem) (*Change, error) {
	live, err := a.live.get(ctx, item.GroupVersionKind(), s.key)
	if meta.IsNoMatchError(err) || (err == nil && live == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if s.action == stepOrphan {
		return &Change{Object: s.key, Action: ActionOrphaned, Live: live, Note: s.reason}, nil
	}
	return &Change{Object: s.key, Action: ActionDeleted, Live: live}, nil
}

// marked returns the rendered object with the owner's label and annotation,
// as Apply writes it.
func (a *Applier) marked(d *desired, owner Owner) *unstructured.Unstructured {
	obj := d.object.DeepCopy()
	a.markOwned(obj, owner)
	return obj
}
