package invariants

import (
	"fmt"

	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/wavekit-dev/wavekit/internal/testing/history"
)

// Waves checks that no object of a wave was written while an object of an
// earlier wave of the same owner, in the same cluster, was not ready
// (kstatus Current) since its own last write. An object being deleted, and
// one whose last write was the test's own (a hand edit), are not judged,
// nor a stretch a recorder may have missed.
func Waves(events []history.Event, f Facts) []Violation {
	objects := index(events)
	byOwner := map[string][]string{} // cluster/owner -> object keys
	for key, t := range objects {
		if owner := f.ownerOf(t[0].Object); owner != "" {
			byOwner[t[0].Cluster+"/"+owner] = append(byOwner[t[0].Cluster+"/"+owner], key)
		}
	}
	var out []Violation
	for _, keys := range byOwner {
		for _, key := range keys {
			for _, w := range objects[key].writes() {
				if f.Own[OwnKey(key, w.RV)] {
					continue
				}
				out = append(out, f.earlierWavesReady(objects, keys, w)...)
			}
		}
	}
	return out
}

// earlierWavesReady checks the objects of keys in waves before w's.
func (f Facts) earlierWavesReady(objects map[string]timeline, keys []string, w history.Event) []Violation {
	wave := f.wave(w.Object)
	var out []Violation
	for _, key := range keys {
		t := objects[key]
		state, exists := t.at(w.RV)
		if !exists || key == w.Key() || f.wave(state.Object) >= wave || state.Object.GetDeletionTimestamp() != nil {
			continue
		}
		since, byTest := f.lastWrite(t, w.RV)
		if byTest || f.inGap(state.Cluster, state.Kind, since, w.RV) || readyBetween(t, since, w.RV) {
			continue
		}
		out = append(out, Violation{Invariant: "waves", Object: w.Key(), At: w.At, Message: fmt.Sprintf(
			"written (wave %d, version %d) while %s of wave %d was not ready since its write at version %d (last seen %s)",
			wave, w.RV, key, f.wave(state.Object), since, statusOf(state))})
	}
	return out
}

// lastWrite is the version of the last write of t before rv, and whether
// it was the test's own.
func (f Facts) lastWrite(t timeline, rv uint64) (uint64, bool) {
	var last history.Event
	for _, e := range t.writes() {
		if e.RV < rv {
			last = e
		}
	}
	if last.Object == nil {
		return 0, false // listed only: written before the recording
	}
	return last.RV, f.Own[OwnKey(last.Key(), last.RV)]
}

// readyBetween tells whether a state of t from version from up to before
// to was ready.
func readyBetween(t timeline, from, to uint64) bool {
	for _, e := range t {
		if e.RV >= from && e.RV < to && e.Type != history.Deleted && e.Type != history.Vanished && statusOf(e) == status.CurrentStatus {
			return true
		}
	}
	return false
}

// statusOf is the kstatus of the object of e.
func statusOf(e history.Event) status.Status {
	r, err := status.Compute(e.Object)
	if err != nil {
		return status.UnknownStatus
	}
	return r.Status
}
