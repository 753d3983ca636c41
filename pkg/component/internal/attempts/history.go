package attempts

import (
	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"slices"
)

// historyMessageLimit bounds a history entry's message, so that ten of them
// never crowd the status.
const historyMessageLimit = 1024

// addHistory records an attempt's end. An entry of the same outcome as the
// newest one (generation, render, source and result: another failed try of
// one render) is merged into it, taking its message and finished time; the
// oldest entries go past HistoryLimit.
func addHistory(s *api.Status, entry api.HistoryEntry) {
	entry.Message = bound.Message(entry.Message, historyMessageLimit)
	if last := lastHistory(s); last != nil && sameOutcome(*last, entry) {
		last.Message, last.Finished = entry.Message, entry.Finished
		return
	}
	s.History = append(s.History, entry)
	if extra := len(s.History) - api.HistoryLimit; extra > 0 {
		s.History = append([]api.HistoryEntry(nil), s.History[extra:]...)
	}
}

// lastHistory returns the newest entry, or nil.
func lastHistory(s *api.Status) *api.HistoryEntry {
	if len(s.History) == 0 {
		return nil
	}
	return &s.History[len(s.History)-1]
}

// sameOutcome tells whether two entries record the same outcome of the
// same render.
func sameOutcome(e, o api.HistoryEntry) bool {
	return e.Generation == o.Generation && e.RenderDigest == o.RenderDigest && e.Result == o.Result && sameSource(e.Source, o.Source)
}

func sameSource(a, b *manifests.SourceInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.URL == b.URL && a.Revision == b.Revision && a.Digest == b.Digest && a.Verified == b.Verified &&
		slices.Equal(a.Dependencies, b.Dependencies)
}
