package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// A plan is the order in which one pass of Apply or Delete works on a
// component's objects: groups run one after the other, the steps of a group
// concurrently (bounded by Options.Concurrency). It is a pure function of the
// rendered objects and the inventory, so every ordering rule is decided here
// and table-tested without an API server; the executor (execute.go) decides
// only what the live objects decide: create, update or nothing for an apply
// step, and whether a group is done.
type plan struct {
	groups []group
}

// step is one object's part in a group.
type step struct {
	action Action
	key    manifests.ObjectKey
	reason string
}

// group is a set of steps the executor may run concurrently.
type group struct {
	kind  PlanGroupKind
	wave  int16
	stage kinds.Stage
	steps []step
	// external is what a GroupExternal group does (ActionApply,
	// ActionPrune, ActionDelete); its dependents are the Externals'.
	external Action
}

// String renders a group as one line: "apply 0 configuration: unchanged
// ConfigMap ns/a (reason), apply ConfigMap ns/b".
func (g group) String() string {
	head := fmt.Sprintf("%s %d", g.kind, g.wave)
	if g.kind == GroupExternal {
		return head + ": " + string(g.external)
	}
	if api.StagedGroup(g.kind) {
		head += " " + g.stage.String()
	}
	steps := make([]string, len(g.steps))
	for i, s := range g.steps {
		steps[i] = string(s.action) + " " + s.key.String()
		if s.reason != "" {
			steps[i] += " (" + s.reason + ")"
		}
	}
	return head + ": " + strings.Join(steps, ", ")
}

// lines renders the plan one group per line.
func (p plan) lines() []string {
	out := make([]string, len(p.groups))
	for i, g := range p.groups {
		out[i] = g.String()
	}
	return out
}

func (p *plan) add(g group) {
	if len(g.steps) > 0 {
		p.groups = append(p.groups, g)
	}
}

// planApply orders one Apply pass: each apply-order wave stage by stage
// (objects sorted by sortForApply), instances of the component's own types
// only once the definitions of their wave are ready, then the whole wave
// ready, then what is purged at the end of the wave (every purge order before
// the next wave's order); after the last wave, what left the manifests is
// pruned as planDeletion orders it. External dependents go first in each of
// externals (their apply waves), and are pruned after the objects.
// objs must be sorted by sortForApply.
func planApply(objs []*desired, items map[manifests.ObjectKey]*manifests.InventoryItem, inventory []*manifests.InventoryItem, externals externalPlan) plan {
	var p plan
	purged := map[manifests.ObjectKey]bool{}
	waves := groupByWave(objs)
	for i, wave := range waves {
		order := wave[0].policies.ApplyOrder
		for _, stageObjs := range groupByStage(wave) {
			if stageObjs[0].stage == kinds.StageManagedInstances {
				p.add(group{kind: GroupWait, wave: order, steps: readySteps(wave, func(d *desired) bool {
					return d.stage < kinds.StageManagedInstances && d.managedTypes != nil
				}, "serves the instances that follow")})
			}
			p.add(group{kind: GroupApply, wave: order, stage: stageObjs[0].stage, steps: applySteps(stageObjs, items)})
		}
		p.add(group{kind: GroupWait, wave: order, steps: readySteps(wave, func(*desired) bool { return true }, "")})
		purgeBefore := int(maxWave) + 1
		if i+1 < len(waves) {
			purgeBefore = int(waves[i+1][0].policies.ApplyOrder)
		}
		p.add(group{kind: GroupPurge, wave: order, steps: purgeSteps(objs, items, purgeBefore, purged)})
	}
	p = withExternals(p, externals.waves, ActionApply, true)
	p.groups = append(p.groups, planDeletion(obsolete(objs, inventory), managedTypesOfInventory(inventory), onApply).groups...)
	if externals.present {
		p.groups = append(p.groups, group{kind: GroupExternal, wave: maxWave, external: ActionPrune})
	}
	return p
}

// groupByWave splits sorted objects into their apply waves.
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

// groupByStage splits the sorted objects of one wave into their kind stages.
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

const maxWave = int16(1<<15 - 1)

func applySteps(objs []*desired, items map[manifests.ObjectKey]*manifests.InventoryItem) []step {
	steps := make([]step, len(objs))
	for i, d := range objs {
		steps[i] = step{action: ActionApply, key: d.key}
		if dec, settled := settledByRecord(d, items[d.key]); settled {
			steps[i] = step{action: ActionUnchanged, key: d.key, reason: dec.reason}
		}
	}
	return steps
}

func readySteps(wave []*desired, selected func(*desired) bool, reason string) []step {
	steps := make([]step, 0, len(wave))
	for _, d := range wave {
		if selected(d) {
			steps = append(steps, step{action: ActionReady, key: d.key, reason: reason})
		}
	}
	return steps
}

// purgeSteps returns the objects purged before the wave purgeBefore that
// were not purged at the end of an earlier wave of this plan or pass.
func purgeSteps(objs []*desired, items map[manifests.ObjectKey]*manifests.InventoryItem, purgeBefore int, purged map[manifests.ObjectKey]bool) []step {
	var steps []step
	for _, d := range objs {
		if d.policies.PurgeOrder == nil || int(*d.policies.PurgeOrder) >= purgeBefore || purged[d.key] {
			continue
		}
		purged[d.key] = true
		if items[d.key].Phase != manifests.PhaseCompleted {
			steps = append(steps, step{action: ActionPurge, key: d.key})
		}
	}
	return steps
}

// obsolete returns the inventory items that are no longer rendered, delete
// hooks and tests aside (Apply never renders them; a test run deletes the
// tests that left the render).
func obsolete(objs []*desired, inventory []*manifests.InventoryItem) []*manifests.InventoryItem {
	rendered := make(map[manifests.ObjectKey]bool, len(objs))
	for _, d := range objs {
		rendered[d.key] = true
	}
	var out []*manifests.InventoryItem
	for _, item := range inventory {
		if !rendered[item.Key()] && item.DeleteHook == "" && item.TestHook == "" {
			out = append(out, item)
		}
	}
	return out
}

// planDeletion orders deletions (pruning on apply, or the whole component on
// delete): delete-order waves ascending; within a wave its delete hooks
// first, one at a time, then the objects stage by stage in reverse (managed
// instances first, namespaces last). Instances of the served types count as
// managed instances.
func planDeletion(items []*manifests.InventoryItem, served []manifests.TypeInfo, mode deletionMode) plan {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b *manifests.InventoryItem) int {
		if a.DeleteOrder != b.DeleteOrder {
			return int(a.DeleteOrder) - int(b.DeleteOrder)
		}
		return int(deletionStage(b, served)) - int(deletionStage(a, served))
	})
	var p plan
	for start := 0; start < len(sorted); {
		first := sorted[start]
		if first.DeleteHook != "" {
			p.add(group{kind: GroupHook, wave: first.DeleteOrder, steps: []step{{action: ActionRunHook, key: first.Key(), reason: first.DeleteHook}}})
			start++
			continue
		}
		end := start
		for end < len(sorted) && sorted[end].DeleteOrder == first.DeleteOrder && sorted[end].DeleteHook == "" &&
			deletionStage(sorted[end], served) == deletionStage(first, served) {
			end++
		}
		g := group{kind: mode.planGroupKind(), wave: first.DeleteOrder, stage: deletionStage(first, served)}
		for _, item := range sorted[start:end] {
			g.steps = append(g.steps, deletionStep(item, mode))
		}
		p.add(g)
		start = end
	}
	return p
}

// planGroupKind is the kind of a deletion group: a prune on apply, a delete of
// the component on delete.
func (m deletionMode) planGroupKind() PlanGroupKind {
	if m == onApply {
		return GroupPrune
	}
	return GroupDelete
}

func deletionStep(item *manifests.InventoryItem, mode deletionMode) step {
	switch {
	case mode.orphans(item.DeletePolicy):
		return step{action: ActionOrphan, key: item.Key(), reason: "delete-policy " + string(item.DeletePolicy)}
	case mode == onApply:
		return step{action: ActionPrune, key: item.Key()}
	}
	return step{action: ActionDelete, key: item.Key()}
}

func deletionStage(item *manifests.InventoryItem, served []manifests.TypeInfo) kinds.Stage {
	if item.DeleteHook != "" {
		return kinds.StageManagedInstances + 1 // a wave's hooks run before its objects go
	}
	if _, ok := kinds.ServedType(served, item.Group, item.Kind); ok {
		return kinds.StageManagedInstances
	}
	return kinds.StageOf(item.Group, item.Kind)
}

func managedTypesOfInventory(items []*manifests.InventoryItem) []manifests.TypeInfo {
	var types []manifests.TypeInfo
	for _, item := range items {
		types = append(types, item.ManagedTypes...)
	}
	return types
}
