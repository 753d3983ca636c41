package invariants

import (
	"fmt"
	"time"

	"github.com/wavekit-dev/wavekit/internal/testing/history"
)

// Others checks that nothing changed or deleted an object of others
// (Facts.Foreign) but the test itself.
func Others(events []history.Event, f Facts) []Violation {
	var out []Violation
	for _, e := range events {
		key := e.Key()
		if !f.Foreign[key] || e.Type == history.Added || e.Type == history.Listed || f.Own[OwnKey(key, e.RV)] {
			continue
		}
		out = append(out, Violation{Invariant: "others", Object: key, At: e.At,
			Message: fmt.Sprintf("%s at version %d by someone other than its owner", e.Type, e.RV)})
	}
	return out
}

// Idle checks that nothing wrote a Component or an object of the
// operator's between from and to, a stretch in which no one but the
// operator could have (after every Component converged).
func Idle(events []history.Event, f Facts, from, to time.Time) []Violation {
	last := map[string]string{}
	var out []Violation
	for _, e := range events {
		key := e.Key()
		c := content(e.Object)
		if e.Kind == "Component" {
			c = fmt.Sprint(c, e.Object.Object["status"])
		}
		previous, seen := last[key]
		last[key] = c
		if e.At.Before(from) || e.At.After(to) || e.Type == history.Listed || e.Type == history.Vanished {
			continue
		}
		if e.Kind != "Component" && f.ownerOf(e.Object) == "" || seen && previous == c && e.Type == history.Modified {
			continue
		}
		out = append(out, Violation{Invariant: "idle", Object: key, At: e.At,
			Message: fmt.Sprintf("%s at version %d while every Component was Ready and nothing changed", e.Type, e.RV)})
	}
	return out
}
