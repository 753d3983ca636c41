package api

import "fmt"

// Stop says where a pass stopped short of done: at which group of the
// plan, in which wave and kind stage.
type Stop struct {
	// Step is the kind of group the pass stopped in.
	Step PlanGroupKind
	// Wave is the apply wave (GroupApply, GroupWait, GroupPurge) or the
	// delete wave (GroupPrune, GroupDelete, GroupHook).
	Wave int16
	// Stage is the kind stage being applied or deleted ("configuration",
	// "workloads"), what a GroupExternal group does ("apply", "prune",
	// "delete"); "" for the other steps.
	Stage string
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

// ApplyWave is the wave Result.Wave reports: the apply wave, or 0 while
// pruning or deleting.
func ApplyWave(s Stop) int16 {
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
