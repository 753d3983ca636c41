package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// A Plan is the order in which one pass of Apply or Delete works on a
// component's objects: groups run one after the other, the steps of a group
// concurrently (bounded by Options.Concurrency). It is a pure function of
// the rendered objects and the inventory, so every ordering rule is decided
// here and table-tested without an API server; the engine's executor
// (execute.go) decides only what the live objects decide: create, update or
// nothing for an apply step, and whether a group is done.
type Plan struct {
	Groups []Group
}

// Step is one object's part in a group.
type Step struct {
	Action api.Action
	Key    manifests.ObjectKey
	Reason string
}

// Group is a set of steps the executor may run concurrently.
type Group struct {
	Kind  api.PlanGroupKind
	Wave  int16
	Stage kinds.Stage
	Steps []Step
	// External is what a GroupExternal group does (ActionApply,
	// ActionPrune, ActionDelete); its dependents are the Externals'.
	External api.Action
}

// String renders a group as one line: "apply 0 configuration: unchanged
// ConfigMap ns/a (reason), apply ConfigMap ns/b".
func (g Group) String() string {
	head := fmt.Sprintf("%s %d", g.Kind, g.Wave)
	if g.Kind == api.GroupExternal {
		return head + ": " + string(g.External)
	}
	if api.StagedGroup(g.Kind) {
		head += " " + g.Stage.String()
	}
	steps := make([]string, len(g.Steps))
	for i, s := range g.Steps {
		steps[i] = string(s.Action) + " " + s.Key.String()
		if s.Reason != "" {
			steps[i] += " (" + s.Reason + ")"
		}
	}
	return head + ": " + strings.Join(steps, ", ")
}

// lines renders the plan one group per line.
func (p Plan) lines() []string {
	out := make([]string, len(p.Groups))
	for i, g := range p.Groups {
		out[i] = g.String()
	}
	return out
}

func (p *Plan) add(g Group) {
	if len(g.Steps) > 0 {
		p.Groups = append(p.Groups, g)
	}
}

// Apply orders one Apply pass: each apply-order wave stage by stage
// (objects sorted by sortForApply), instances of the component's own types
// only once the definitions of their wave are ready, then the whole wave
// ready, then what is purged at the end of the wave (every purge order before
// the next wave's order); after the last wave, what left the manifests is
// pruned as planDeletion orders it. External dependents go first in each of
// externals (their apply waves), and are pruned after the objects.
// objs must be sorted by sortForApply.
func Apply(objs []*Desired, items map[manifests.ObjectKey]*manifests.InventoryItem, inventory []*manifests.InventoryItem, externals ExternalWaves) Plan {
	var p Plan
	purged := map[manifests.ObjectKey]bool{}
	waves := groupByWave(objs)
	for i, wave := range waves {
		order := wave[0].Policies.ApplyOrder
		for _, stageObjs := range groupByStage(wave) {
			if stageObjs[0].Stage == kinds.StageManagedInstances {
				p.add(Group{Kind: api.GroupWait, Wave: order, Steps: readySteps(wave, func(d *Desired) bool {
					return d.Stage < kinds.StageManagedInstances && d.ManagedTypes != nil
				}, "serves the instances that follow")})
			}
			p.add(Group{Kind: api.GroupApply, Wave: order, Stage: stageObjs[0].Stage, Steps: applySteps(stageObjs, items)})
		}
		p.add(Group{Kind: api.GroupWait, Wave: order, Steps: readySteps(wave, func(*Desired) bool { return true }, "")})
		purgeBefore := int(maxWave) + 1
		if i+1 < len(waves) {
			purgeBefore = int(waves[i+1][0].Policies.ApplyOrder)
		}
		p.add(Group{Kind: api.GroupPurge, Wave: order, Steps: purgeSteps(objs, items, purgeBefore, purged)})
	}
	p = WithExternals(p, externals.Waves, api.ActionApply, true)
	p.Groups = append(p.Groups, Deletion(obsolete(objs, inventory), managedTypesOfInventory(inventory), onApply).Groups...)
	if externals.Present {
		p.Groups = append(p.Groups, Group{Kind: api.GroupExternal, Wave: maxWave, External: api.ActionPrune})
	}
	return p
}

// groupByWave splits sorted objects into their apply waves.
func groupByWave(objs []*Desired) [][]*Desired {
	var waves [][]*Desired
	for i, d := range objs {
		if i == 0 || d.Policies.ApplyOrder != objs[i-1].Policies.ApplyOrder {
			waves = append(waves, nil)
		}
		waves[len(waves)-1] = append(waves[len(waves)-1], d)
	}
	return waves
}

// groupByStage splits the sorted objects of one wave into their kind stages.
func groupByStage(objs []*Desired) [][]*Desired {
	var stages [][]*Desired
	for i, d := range objs {
		if i == 0 || d.Stage != objs[i-1].Stage {
			stages = append(stages, nil)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], d)
	}
	return stages
}

const maxWave = int16(1<<15 - 1)

func applySteps(objs []*Desired, items map[manifests.ObjectKey]*manifests.InventoryItem) []Step {
	steps := make([]Step, len(objs))
	for i, d := range objs {
		steps[i] = Step{Action: api.ActionApply, Key: d.Key}
		if dec, settled := SettledByRecord(d, items[d.Key]); settled {
			steps[i] = Step{Action: api.ActionUnchanged, Key: d.Key, Reason: dec.Reason}
		}
	}
	return steps
}

func readySteps(wave []*Desired, selected func(*Desired) bool, reason string) []Step {
	steps := make([]Step, 0, len(wave))
	for _, d := range wave {
		if selected(d) {
			steps = append(steps, Step{Action: api.ActionReady, Key: d.Key, Reason: reason})
		}
	}
	return steps
}

// purgeSteps returns the objects purged before the wave purgeBefore that
// were not purged at the end of an earlier wave of this plan or pass.
func purgeSteps(objs []*Desired, items map[manifests.ObjectKey]*manifests.InventoryItem, purgeBefore int, purged map[manifests.ObjectKey]bool) []Step {
	var steps []Step
	for _, d := range objs {
		if d.Policies.PurgeOrder == nil || int(*d.Policies.PurgeOrder) >= purgeBefore || purged[d.Key] {
			continue
		}
		purged[d.Key] = true
		if items[d.Key].Phase != manifests.PhaseCompleted {
			steps = append(steps, Step{Action: api.ActionPurge, Key: d.Key})
		}
	}
	return steps
}

// obsolete returns the inventory items that are no longer rendered, delete
// hooks and tests aside (Apply never renders them; a test run deletes the
// tests that left the render).
func obsolete(objs []*Desired, inventory []*manifests.InventoryItem) []*manifests.InventoryItem {
	rendered := make(map[manifests.ObjectKey]bool, len(objs))
	for _, d := range objs {
		rendered[d.Key] = true
	}
	var out []*manifests.InventoryItem
	for _, item := range inventory {
		if !rendered[item.Key()] && item.DeleteHook == "" && item.TestHook == "" {
			out = append(out, item)
		}
	}
	return out
}

// Deletion orders deletions (pruning on apply, or the whole component on
// delete): delete-order waves ascending; within a wave its delete hooks
// first, one at a time, then the objects stage by stage in reverse (managed
// instances first, namespaces last). Instances of the served types count as
// managed instances.
func Deletion(items []*manifests.InventoryItem, served []manifests.TypeInfo, mode deletionMode) Plan {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b *manifests.InventoryItem) int {
		if a.DeleteOrder != b.DeleteOrder {
			return int(a.DeleteOrder) - int(b.DeleteOrder)
		}
		return int(deletionStage(b, served)) - int(deletionStage(a, served))
	})
	var p Plan
	for start := 0; start < len(sorted); {
		first := sorted[start]
		if first.DeleteHook != "" {
			p.add(Group{Kind: api.GroupHook, Wave: first.DeleteOrder, Steps: []Step{{Action: api.ActionRunHook, Key: first.Key(), Reason: first.DeleteHook}}})
			start++
			continue
		}
		end := start
		for end < len(sorted) && sorted[end].DeleteOrder == first.DeleteOrder && sorted[end].DeleteHook == "" &&
			deletionStage(sorted[end], served) == deletionStage(first, served) {
			end++
		}
		g := Group{Kind: mode.planGroupKind(), Wave: first.DeleteOrder, Stage: deletionStage(first, served)}
		for _, item := range sorted[start:end] {
			g.Steps = append(g.Steps, deletionStep(item, mode))
		}
		p.add(g)
		start = end
	}
	return p
}

// planGroupKind is the kind of a deletion group: a prune on apply, a delete of
// the component on delete.
func (m deletionMode) planGroupKind() api.PlanGroupKind {
	if m == onApply {
		return api.GroupPrune
	}
	return api.GroupDelete
}

func deletionStep(item *manifests.InventoryItem, mode deletionMode) Step {
	switch {
	case mode.Orphans(item.DeletePolicy):
		return Step{Action: api.ActionOrphan, Key: item.Key(), Reason: "delete-policy " + string(item.DeletePolicy)}
	case mode == onApply:
		return Step{Action: api.ActionPrune, Key: item.Key()}
	}
	return Step{Action: api.ActionDelete, Key: item.Key()}
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

// deletionMode says which orphan policies apply: pruning on apply or
// deleting the whole component.
type deletionMode int

const (
	onApply deletionMode = iota
	OnDelete
)

func (m deletionMode) Orphans(p manifests.DeletePolicy) bool {
	switch p {
	case manifests.DeleteOrphan:
		return true
	case manifests.DeleteOrphanOnApply:
		return m == onApply
	case manifests.DeleteOrphanOnDelete:
		return m == OnDelete
	}
	return false
}

// ExternalWaves is what a plan needs to know of the external dependents:
// whether the owner has Externals at all (then an apply prunes them last)
// and the waves that hold some.
type ExternalWaves struct {
	Present bool
	Waves   []int16
}

// WithExternals adds a GroupExternal group of action for each of waves to
// the groups of p, which are in ascending wave order: before the wave's
// first group (first true: apply) or after its last (deletion).
func WithExternals(p Plan, waves []int16, action api.Action, first bool) Plan {
	if len(waves) == 0 {
		return p
	}
	var out Plan
	next := 0
	due := func(w int16) bool {
		if first {
			return waves[next] <= w
		}
		return waves[next] < w
	}
	for _, g := range p.Groups {
		for next < len(waves) && due(g.Wave) {
			out.Groups = append(out.Groups, Group{Kind: api.GroupExternal, Wave: waves[next], External: action})
			next++
		}
		out.Groups = append(out.Groups, g)
	}
	for ; next < len(waves); next++ {
		out.Groups = append(out.Groups, Group{Kind: api.GroupExternal, Wave: waves[next], External: action})
	}
	return out
}
