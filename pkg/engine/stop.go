package engine

import "fmt"

// Stop says where a pass stopped short of done: at which step of the plan,
// in which wave and kind stage.
type Stop struct {
	// Step is the kind of group the pass stopped in.
	Step StopStep
	// Wave is the apply wave (StopApply, StopWait, StopPurge) or the delete
	// wave (StopPrune, StopDelete, StopHook).
	Wave int16
	// Stage is the kind stage being applied or deleted ("configuration",
	// "workloads"); "" for the other steps.
	Stage string
}

// StopStep names the kind of group a pass stopped in.
type StopStep string

// Where a pass stops.
const (
	// StopNone: the pass is done, or stopped before its plan (a Delete
	// that foreign instances block, an invalid manifest).
	StopNone StopStep = ""
	// StopApply: applying a wave's stage failed.
	StopApply StopStep = "apply"
	// StopWait: waiting for the objects of a wave (or of its definitions).
	StopWait StopStep = "wait"
	// StopPurge: waiting for the objects purged at the end of a wave.
	StopPurge StopStep = "purge"
	// StopPrune: pruning what left the manifests (Apply).
	StopPrune StopStep = "prune"
	// StopDelete: deleting a delete wave of the component (Delete).
	StopDelete StopStep = "delete"
	// StopHook: running a delete hook (Delete).
	StopHook StopStep = "hook"
	// StopTest: running a test, in the wave of its apply-order, or
	// deleting tests once the run is over (Test).
	StopTest StopStep = "test"
)

// String says where the pass stopped: "wait in wave 2", "prune in delete
// wave 0 (workloads)", "" when it is done.
func (s Stop) String() string {
	if s.Step == StopNone {
		return ""
	}
	kind := "wave"
	if s.Step == StopPrune || s.Step == StopDelete || s.Step == StopHook {
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
	case StopApply, StopWait, StopPurge:
		return s.Wave
	}
	return 0
}

// stopIn is where a pass that stops in g stopped; deleting tells Delete's
// delete groups from Apply's prune groups.
func stopIn(g group, deleting bool) Stop {
	s := Stop{Wave: g.wave}
	switch g.kind {
	case groupApply:
		s.Step, s.Stage = StopApply, g.stage.String()
	case groupWait:
		s.Step = StopWait
	case groupPurge:
		s.Step = StopPurge
	case groupHook:
		s.Step = StopHook
	case groupDelete:
		s.Step, s.Stage = StopPrune, g.stage.String()
		if deleting {
			s.Step = StopDelete
		}
	}
	return s
}
