package engine

import "fmt"

// Stop says where a pass stopped short of done: at which group of the
// plan, in which wave and kind stage.
type Stop struct {
	// Step is the kind of group the pass stopped in.
	Step GroupKind
	// Wave is the apply wave (GroupApply, GroupWait, GroupPurge) or the
	// delete wave (GroupPrune, GroupDelete, GroupHook).
	Wave int16
	// Stage is the kind stage being applied or deleted ("configuration",
	// "workloads"), what a GroupExternal group does ("apply", "prune",
	// "delete"); "" for the other steps.
	Stage string
}

// GroupKind is what a group of a pass's plan does. The plan, Stop and
// PreviewStep name groups with it, and so does the CLI.
type GroupKind string

// The kinds of group.
const (
	// GroupNone: no group; as Stop.Step, the pass is done, or stopped before
	// its plan (a Delete that foreign instances block, an invalid manifest).
	GroupNone GroupKind = ""
	// GroupApply creates or updates the objects of one wave and stage.
	GroupApply GroupKind = "apply"
	// GroupWait waits until the objects of a wave (or of its definitions)
	// are ready; a failed one is an error.
	GroupWait GroupKind = "wait"
	// GroupPurge deletes the objects purged at the end of a wave; the pass
	// goes on once they are gone.
	GroupPurge GroupKind = "purge"
	// GroupPrune deletes (or orphans) what left the manifests, one delete
	// wave and stage at a time (Apply).
	GroupPrune GroupKind = "prune"
	// GroupDelete deletes (or orphans) the objects of one delete wave and
	// stage of the component (Delete).
	GroupDelete GroupKind = "delete"
	// GroupHook runs one delete hook: apply, wait until ready, delete.
	GroupHook GroupKind = "hook"
	// GroupTest runs a test, in the wave of its apply-order, or deletes
	// tests once the run is over (Test).
	GroupTest GroupKind = "test"
	// GroupExternal applies, prunes or deletes the dependents outside
	// Kubernetes of one wave (Owner.Externals).
	GroupExternal GroupKind = "external"
)

// stagedGroup tells whether groups of kind work stage by stage.
func stagedGroup(kind GroupKind) bool {
	return kind == GroupApply || kind == GroupPrune || kind == GroupDelete
}

// String says where the pass stopped: "wait in wave 2", "prune in delete
// wave 0 (workloads)", "" when it is done.
func (s Stop) String() string {
	if s.Step == GroupNone {
		return ""
	}
	kind := "wave"
	if s.Step == GroupPrune || s.Step == GroupDelete || s.Step == GroupHook || s.Step == GroupExternal && s.Stage != string(ActionApply) {
		kind = "delete wave"
	}
	out := fmt.Sprintf("%s in %s %d", s.Step, kind, s.Wave)
	if s.Stage != "" {
		out += " (" + s.Stage + ")"
	}
	return out
}

// applyWave is the wave Result.Wave reports: the apply wave, or 0 while
// pruning or deleting.
func (s Stop) applyWave() int16 {
	switch s.Step {
	case GroupApply, GroupWait, GroupPurge:
		return s.Wave
	case GroupExternal:
		if s.Stage == string(ActionApply) {
			return s.Wave
		}
	}
	return 0
}
