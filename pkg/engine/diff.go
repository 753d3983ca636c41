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
	Action Action
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

// change returns what the step would do, or nil for steps that change nothing
// of their own (waits, purges, objects already gone).
func (s *ownerScope) change(ctx context.Context, st step, d *desired, item *manifests.InventoryItem) (*Change, error) {
	switch st.action {
	case ActionApply:
		return s.applyChange(ctx, d, item)
	case ActionUnchanged:
		return &Change{Object: st.key, Action: ActionUnchanged, Note: st.reason}, nil
	case ActionPrune, ActionOrphan:
		return s.a.deletionChange(ctx, st, item)
	}
	return nil, nil
}

func (s *ownerScope) applyChange(ctx context.Context, d *desired, item *manifests.InventoryItem) (*Change, error) {
	change := &Change{Object: d.key, Action: ActionCreate}
	live, err := s.a.live.get(ctx, d.gvk, d.key)
	if meta.IsNoMatchError(err) {
		change.Result, change.Note = s.marked(d), "not validated: the cluster does not serve "+d.gvk.Kind+" yet"
		return change, nil
	}
	if err != nil {
		return nil, err
	}
	if live != nil {
		change.Action, change.Live = ActionUpdate, live
	}
	switch dec := s.decideFor(ctx, d, item, live); {
	case dec.kind == writeRefuse:
		return nil, dec.err
	case dec.kind == writeKeep && dec.reason == reasonRunEnded:
		return &Change{Object: d.key, Action: ActionUnchanged, Note: reasonRunEnded}, nil
	case dec.kind == writeKeep:
		return &Change{Object: d.key, Action: ActionUnchanged, Live: live}, nil
	}
	out, err := s.write(ctx, d, live)
	switch {
	case apierrors.IsNotFound(err) && live == nil && d.key.Namespace != "":
		out.live, change.Note = s.marked(d), "not validated: namespace "+d.key.Namespace+" does not exist yet"
	case err != nil:
		return nil, wordedError(ActionApply, wordingDryRun, d.key, err)
	case out.replaced != nil:
		change.Action = ActionReplace
		out.live, change.Note = s.marked(d), "re-created, since "+out.replaced.reason()
	case out.live == nil:
		// A recreate: the dry-run delete changed nothing, so show the object it creates.
		out.live, change.Note = s.marked(d), "recreated: "+string(d.policies.Update)+" policy"
	}
	change.Result = out.live
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
	if s.action == ActionOrphan {
		return &Change{Object: s.key, Action: ActionOrphan, Live: live, Note: s.reason}, nil
	}
	return &Change{Object: s.key, Action: ActionDelete, Live: live}, nil
}

// marked returns the rendered object with the owner's label and annotation,
// as Apply writes it.
func (s *ownerScope) marked(d *desired) *unstructured.Unstructured {
	obj := d.object.DeepCopy()
	s.markOwned(obj)
	return obj
}
