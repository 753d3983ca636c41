package rollout

import (
	"fmt"
	"slices"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// Step is where the rollout to newest is, given where it was (current,
// nil before the first revision) and the instances now: a new revision
// starts a rollout at its first wave; a wave whose instances all run the
// target and are Ready lets the next one move; an instance that failed at
// the target halts it (it goes on once none does), naming the instance it
// halted at for as long as that one fails; spec.paused holds it.
func Step(spec v1alpha1.DefinitionRollout, newest int64, current *v1alpha1.DefinitionRolloutStatus, instances []Instance) (v1alpha1.DefinitionRolloutStatus, error) {
	st := start(newest, current)
	waves, err := Waves(spec, instances)
	if err != nil {
		return st, err
	}
	st.Waves, st.WaveNames = int32(len(waves)), names(waves)
	byID := map[string]Instance{}
	for _, i := range instances {
		byID[i.ID] = i
	}
	haltedAt := ""
	if st.Phase == v1alpha1.RolloutHalted && st.Failed != nil {
		haltedAt = st.Failed.Instance
	}
	st.Failed, st.Message = nil, ""
	if wave, failed := firstFailed(waves[:min(int(st.Wave), len(waves))], byID, st.Revision, haltedAt); failed != nil {
		st.Phase, st.Failed = v1alpha1.RolloutHalted, failed
		st.Message = fmt.Sprintf("halted in wave %s: %s failed at revision %d (%s)", wave, failed.Instance, st.Revision, failed.Reason)
		return st, nil
	}
	if spec.Paused {
		st.Phase = v1alpha1.RolloutPaused
		st.Message = fmt.Sprintf("paused at wave %d of %d", min(st.Wave, st.Waves), st.Waves)
		return st, nil
	}
	st.Phase = v1alpha1.RolloutProgressing
	for st.Wave <= int32(len(waves)) {
		if st.Wave == 0 {
			st.Wave = 1
			continue
		}
		waiting := waitingIn(waves[st.Wave-1], byID, st.Revision)
		if len(waiting) > 0 {
			st.Message = fmt.Sprintf("wave %s (%d of %d) waits for %s", waves[st.Wave-1].Name, st.Wave, st.Waves, summary(waiting))
			return st, nil
		}
		if st.Wave == int32(len(waves)) {
			break
		}
		st.Wave++
	}
	st.Phase, st.Wave, st.Message = v1alpha1.RolloutComplete, st.Waves, ""
	return st, nil
}

// start is the status of a rollout to newest: current's, or a new one
// that moves from the revision the instances ran before.
func start(newest int64, current *v1alpha1.DefinitionRolloutStatus) v1alpha1.DefinitionRolloutStatus {
	if current != nil && current.Revision == newest {
		return *current.DeepCopy()
	}
	st := v1alpha1.DefinitionRolloutStatus{Revision: newest, Wave: 0}
	if current != nil {
		st.From = current.Revision
		if current.Phase != v1alpha1.RolloutComplete && current.From != 0 {
			st.From = current.From
		}
	}
	return st
}

func names(waves []Wave) []string {
	out := make([]string, len(waves))
	for i, w := range waves {
		out[i] = w.Name
	}
	return out
}

// firstFailed is the instance of reached (the waves allowed to move) that
// failed at target, and its wave's name: prefer, the instance the rollout
// halted at before, while it still fails there, so that the status goes on
// naming the instance the halt's Event and alert named; else the first
// one, wave by wave in ID order. nil when none failed.
func firstFailed(reached []Wave, byID map[string]Instance, target int64, prefer string) (string, *v1alpha1.DefinitionRolloutFailure) {
	var wave string
	var first *v1alpha1.DefinitionRolloutFailure
	for _, w := range reached {
		for _, id := range w.Members {
			i := byID[id]
			if i.Running != target || !i.Failed {
				continue
			}
			failed := &v1alpha1.DefinitionRolloutFailure{Instance: id, Reason: i.Reason, Message: bound(i.Message, 1000)}
			if id == prefer {
				return w.Name, failed
			}
			if first == nil {
				wave, first = w.Name, failed
			}
		}
	}
	return wave, first
}

// waitingIn are the members of w not Ready at target yet.
func waitingIn(w Wave, byID map[string]Instance, target int64) []string {
	var out []string
	for _, id := range w.Members {
		if i := byID[id]; i.Running != target || !i.Ready {
			out = append(out, id)
		}
	}
	return out
}

func summary(ids []string) string {
	if len(ids) <= 3 {
		return fmt.Sprint(ids)
	}
	return fmt.Sprintf("%v and %d more", ids[:3], len(ids)-3)
}

func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Desired is the revision instance i runs under the definition's rollout
// status st, with newest the definition's newest revision and waves its
// waves now: a pinned revision; the target once i runs it or its wave may
// move; else what i runs, or, for a new instance, the revision the others
// ran before the rollout.
func Desired(st *v1alpha1.DefinitionRolloutStatus, newest int64, waves []Wave, i Instance) int64 {
	switch {
	case i.Pinned != 0:
		return i.Pinned
	case st == nil:
		return newest
	case i.Running == st.Revision:
		return st.Revision
	case st.Phase == v1alpha1.RolloutComplete && st.Revision == newest:
		return newest
	}
	if st.Phase != v1alpha1.RolloutPaused {
		for w := 0; w < int(st.Wave) && w < len(waves); w++ {
			if slices.Contains(waves[w].Members, i.ID) {
				return st.Revision
			}
		}
	}
	switch {
	case i.Running != 0:
		return i.Running
	case st.From != 0:
		return st.From
	}
	return st.Revision
}
