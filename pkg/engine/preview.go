package engine

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Preview is what an Apply of objects would do, step by step in the order a
// pass takes the steps: each wave stage by stage, the wait for the wave to
// be ready, what is purged at its end, then what is pruned. It is the
// executor's plan with what the live objects decide filled in (create,
// update or unchanged), so it shows what Apply would do, not a second guess.
type Preview struct {
	Steps []PreviewStep
}

// PreviewStep is one step of a Preview.
type PreviewStep struct {
	// Group is what the step's group does: apply, wait, purge or prune.
	Group PlanGroupKind
	// Wave is the apply order of the group (its delete order for a prune).
	Wave int16
	// Stage names the kinds of an apply or delete group: namespaces,
	// definitions, configuration, workloads, api services, managed
	// instances. Empty for the other groups.
	Stage  string
	Object manifests.ObjectKey
	// Action is what the step would do: create, update or unchanged for an
	// apply; ready, purge, prune (delete), orphan.
	Action Action
	// Reason says why, where the action alone does not.
	Reason string
	// Change holds the live object and the dry-run result of a step that
	// would write or delete; nil for waits and purges.
	Change *Change
	// Rendered is the object as rendered; nil for a prune.
	Rendered *unstructured.Unstructured
}

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

// Changes reports whether any step would write or delete an object.
func (p Preview) Changes() bool {
	for _, s := range p.Steps {
		if s.Change != nil && s.Change.Action != ActionUnchanged || s.Action == ActionPurge {
			return true
		}
	}
	return false
}

// Preview tells what an Apply of objects would do, without changing
// anything: the same validation, plan and write decisions as Apply, with each
// write sent as a server-side dry run. Like Diff (which lists its changes),
// it makes no request for an object Apply would not write and one dry run
// for each other; live objects come from the target's caches. Every wave is
// shown as if the one before became ready. Delete hooks are left out.
func (a *Applier) Preview(ctx context.Context, owner Owner, objects []client.Object, inventory []manifests.InventoryItem) (Preview, error) {
	dry := a.dryRunScope(owner)
	run, objs, _, err := dry.begin(ctx, objects, inventory)
	if err != nil {
		return Preview{}, err
	}
	desired := plan.ByKey(objs)
	var out Preview
	for _, g := range plan.Apply(objs, run.items, run.list(), plan.ExternalWaves{}).Groups {
		for _, s := range g.Steps {
			ps := PreviewStep{Group: g.Kind, Wave: g.Wave, Object: s.Key, Action: s.Action, Reason: stepReason(s, desired[s.Key])}
			if api.StagedGroup(g.Kind) {
				ps.Stage = g.Stage.String()
			}
			if d := desired[s.Key]; d != nil {
				ps.Rendered = d.Object.DeepCopy()
			}
			change, err := dry.change(ctx, s, desired[s.Key], run.item(s.Key))
			if err != nil {
				return Preview{}, err
			}
			switch {
			case change != nil && s.Action == ActionApply:
				ps.Action = change.Action
				fallthrough
			case change != nil:
				ps.Change = change
				if change.Note != "" {
					ps.Reason = change.Note
				}
			case s.Action == ActionPrune || s.Action == ActionOrphan:
				ps.Action, ps.Reason = ActionLeave, ps.Reason+", already gone"
			}
			if ps.Action == ActionUnchanged && ps.Reason == "" {
				ps.Reason = "as last applied"
			}
			out.Steps = append(out.Steps, ps)
		}
	}
	return out, nil
}

// stepReason words why the plan takes a step, where its action alone does
// not say it.
func stepReason(s plan.Step, d *plan.Desired) string {
	switch {
	case s.Reason != "":
		return s.Reason
	case s.Action == ActionPurge && d != nil && d.Policies.PurgeOrder != nil:
		return fmt.Sprintf("purge-order %d", *d.Policies.PurgeOrder)
	case s.Action == ActionPrune:
		return "no longer rendered"
	}
	return ""
}

// change returns what the step would do, or nil for steps that change nothing
// of their own (waits, purges, objects already gone).
func (s *ownerScope) change(ctx context.Context, st plan.Step, d *plan.Desired, item *manifests.InventoryItem) (*Change, error) {
	switch st.Action {
	case ActionApply:
		return s.applyChange(ctx, d, item)
	case ActionUnchanged:
		return &Change{Object: st.Key, Action: ActionUnchanged, Note: st.Reason}, nil
	case ActionPrune, ActionOrphan:
		return s.a.deletionChange(ctx, st, item)
	}
	return nil, nil
}

func (s *ownerScope) applyChange(ctx context.Context, d *plan.Desired, item *manifests.InventoryItem) (*Change, error) {
	change := &Change{Object: d.Key, Action: ActionCreate}
	live, err := s.a.live.Get(ctx, d.GVK, d.Key)
	if meta.IsNoMatchError(err) {
		change.Result, change.Note = s.marked(d), "not validated: the cluster does not serve "+d.GVK.Kind+" yet"
		return change, nil
	}
	if err != nil {
		return nil, err
	}
	if live != nil {
		change.Action, change.Live = ActionUpdate, live
	}
	switch dec := s.decideFor(ctx, d, item, live); {
	case dec.Kind == plan.WriteRefuse:
		return nil, dec.Err
	case dec.Kind == plan.WriteKeep && dec.Reason == plan.ReasonRunEnded:
		return &Change{Object: d.Key, Action: ActionUnchanged, Note: plan.ReasonRunEnded}, nil
	case dec.Kind == plan.WriteKeep:
		return &Change{Object: d.Key, Action: ActionUnchanged, Live: live}, nil
	}
	out, err := s.write(ctx, d, live)
	switch {
	case apierrors.IsNotFound(err) && live == nil && d.Key.Namespace != "":
		out.live, change.Note = s.marked(d), "not validated: namespace "+d.Key.Namespace+" does not exist yet"
	case err != nil:
		return nil, api.WordedError(ActionApply, api.WordingDryRun, d.Key, err)
	case out.replaced != nil:
		change.Action = ActionReplace
		out.live, change.Note = s.marked(d), "re-created, since "+api.ImmutableReason(out.replaced)
	case out.live == nil:
		// A recreate: the dry-run delete changed nothing, so show the object it creates.
		out.live, change.Note = s.marked(d), "recreated: "+string(d.Policies.Update)+" policy"
	}
	change.Result = out.live
	return change, nil
}

func (a *Applier) deletionChange(ctx context.Context, s plan.Step, item *manifests.InventoryItem) (*Change, error) {
	live, err := a.live.Get(ctx, item.GroupVersionKind(), s.Key)
	if meta.IsNoMatchError(err) || (err == nil && live == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if s.Action == ActionOrphan {
		return &Change{Object: s.Key, Action: ActionOrphan, Live: live, Note: s.Reason}, nil
	}
	return &Change{Object: s.Key, Action: ActionDelete, Live: live}, nil
}

// marked returns the rendered object with the owner's label and annotation,
// as Apply writes it.
func (s *ownerScope) marked(d *plan.Desired) *unstructured.Unstructured {
	obj := d.Object.DeepCopy()
	s.markOwned(obj)
	return obj
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
