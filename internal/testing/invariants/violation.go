package invariants

import (
	"fmt"
	"time"
)

// Violation is one invariant found broken.
type Violation struct {
	// Invariant names it: "write-ahead", "waves", "hooks", "others",
	// "idle", "secrets", "convergence", "untracked", "leaked".
	Invariant string
	// Object names the object (cluster/kind/namespace/name) or component.
	Object string
	// Message says what happened.
	Message string
	// At is when the history saw it, if known.
	At time.Time
}

func (v Violation) String() string {
	at := ""
	if !v.At.IsZero() {
		at = " at " + v.At.Format("15:04:05.000")
	}
	return fmt.Sprintf("[%s] %s%s: %s", v.Invariant, v.Object, at, v.Message)
}
