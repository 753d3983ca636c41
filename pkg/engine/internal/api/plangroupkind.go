package api

// PlanGroupKind is what a group of a pass's plan does: apply a wave, wait
// for it, prune, delete, run a hook or a test. The plan, Stop and
// PreviewStep name groups with it, and so does the CLI. It is no
// schema.GroupKind (an API group and kind), which the engine uses too.
type PlanGroupKind string

// The kinds of plan group.
const (
	// GroupNone: no group; as Stop.Step, the pass is done, or stopped before
	// its plan (a Delete that foreign instances block, an invalid manifest).
	GroupNone PlanGroupKind = ""
	// GroupApply creates or updates the objects of one wave and stage.
	GroupApply PlanGroupKind = "apply"
	// GroupWait waits until the objects of a wave (or of its definitions)
	// are ready; a failed one is an error.
	GroupWait PlanGroupKind = "wait"
	// GroupPurge deletes the objects purged at the end of a wave; the pass
	// goes on once they are gone.
	GroupPurge PlanGroupKind = "purge"
	// GroupPrune deletes (or orphans) what left the manifests, one delete
	// wave and stage at a time (Apply).
	GroupPrune PlanGroupKind = "prune"
	// GroupDelete deletes (or orphans) the objects of one delete wave and
	// stage of the component (Delete).
	GroupDelete PlanGroupKind = "delete"
	// GroupHook runs one delete hook: apply, wait until ready, delete.
	GroupHook PlanGroupKind = "hook"
	// GroupTest runs a test, in the wave of its apply-order, or deletes
	// tests once the run is over (Test).
	GroupTest PlanGroupKind = "test"
	// GroupExternal applies, prunes or deletes the dependents outside
	// Kubernetes of one wave (Owner.Externals).
	GroupExternal PlanGroupKind = "external"
)

// StagedGroup tells whether groups of kind work stage by stage.
func StagedGroup(kind PlanGroupKind) bool {
	return kind == GroupApply || kind == GroupPrune || kind == GroupDelete
}
