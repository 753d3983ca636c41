package engine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	Group GroupKind
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
	desired := byKey(objs)
	var out Preview
	for _, g := range planApply(objs, run.items, run.list()).groups {
		for _, s := range g.steps {
			ps := PreviewStep{Group: g.kind, Wave: g.wave, Object: s.key, Action: s.action, Reason: stepReason(s, desired[s.key])}
			if stagedGroup(g.kind) {
				ps.Stage = g.stage.String()
			}
			if d := desired[s.key]; d != nil {
				ps.Rendered = d.object.DeepCopy()
			}
			change, err := dry.change(ctx, s, desired[s.key], run.item(s.key))
			if err != nil {
				return Preview{}, err
			}
			switch {
			case change != nil && s.action == ActionApply:
				ps.Action = change.Action
				fallthrough
			case change != nil:
				ps.Change = change
				if change.Note != "" {
					ps.Reason = change.Note
				}
			case s.action == ActionPrune || s.action == ActionOrphan:
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
func stepReason(s step, d *desired) string {
	switch {
	case s.reason != "":
		return s.reason
	case s.action == ActionPurge && d != nil && d.policies.PurgeOrder != nil:
		return fmt.Sprintf("purge-order %d", *d.policies.PurgeOrder)
	case s.action == ActionPrune:
		return "no longer rendered"
	}
	return ""
}
