package invariants

import "github.com/wavekit-dev/wavekit/internal/testing/history"

// History runs every check of a whole history: write ahead, waves, hooks
// and others' objects.
func History(events []history.Event, f Facts) []Violation {
	var out []Violation
	out = append(out, WriteAhead(events, f)...)
	out = append(out, Waves(events, f)...)
	out = append(out, Hooks(events, f)...)
	return append(out, Others(events, f)...)
}
