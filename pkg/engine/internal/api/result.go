package api

import (
	"fmt"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/drift"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Result says where a run got to.
type Result struct {
	// Inventory is the updated inventory; persist it.
	Inventory []manifests.InventoryItem
	// Done is true when every object is applied and ready (Apply) or gone (Delete).
	Done bool
	// Wave is the apply wave the run stopped in when not Done; 0 also while
	// pruning or deleting: Stopped tells them apart.
	Wave int16
	// Stopped says where the run stopped when not Done: the step (apply,
	// wait, purge, prune, delete, hook), its wave and kind stage.
	Stopped Stop
	// Waiting lists the objects not ready (Apply) or not gone (Delete) yet, with why.
	Waiting []Waiting
	// Blocked lists what foreign instances keep: the whole deletion, or
	// CRDs that left the manifests.
	Blocked []Blocker
	// Recheck is true when the run waits for an object that no event of
	// the target's cache may announce, since the object can carry another
	// shard's label: one it deleted to create it again (update-policy
	// recreate, replace-on-immutable) that the cache did not hold, or a
	// run-once object (a Job) that ran at this render, still runs and is
	// not in the cache. Run again soon instead of waiting for an event.
	Recheck bool
	// Changed is true when the run wrote an object.
	Changed bool
	// Actions lists what the run did to objects, in plan order.
	Actions []ObjectAction
	// Drifted lists the objects that no longer hold what was applied and
	// were left so (drift mode Warn), in key order.
	Drifted []Drift
}

// BlockedMessage joins the blockers into one sentence ("" when none).
func (r Result) BlockedMessage() string {
	parts := make([]string, len(r.Blocked))
	for i, b := range r.Blocked {
		parts[i] = b.String()
	}
	return strings.Join(parts, "; ")
}

// Drift is an object that no longer holds what was applied: the paths of
// its fields that differ, and whether this drift is new since the last
// report.
type Drift = drift.Drift

// Waiting is an object a pass waits for, and why.
type Waiting struct {
	Object manifests.ObjectKey
	// Reason is the object's phase and status ("Updating, InProgress"), or
	// what is done to it ("being deleted").
	Reason string
	// Progress is what the object's status says of its progress
	// ("Available: 1/2"), when the pass read it; it changes as the object
	// progresses, and the inventory does not keep it.
	Progress string
}

// String says what the object waits for, with its progress:
// "apps/Deployment ns/web: Updating, InProgress: Available: 1/2".
func (w Waiting) String() string {
	if w.Progress == "" {
		return w.State()
	}
	return w.State() + ": " + w.Progress
}

// State says what the object waits for without its progress, which is
// what stays the same from one pass to the next while it rolls out:
// "apps/Deployment ns/web: Updating, InProgress".
func (w Waiting) State() string { return w.Object.String() + ": " + w.Reason }

// Summarize names the first shown waiting objects with their progress and
// says how many more there are: "a: InProgress: Available: 0/2; b: being
// deleted and 3 more" ("" for none).
func Summarize(waiting []Waiting, shown int) string {
	return summarize(waiting, shown, Waiting.String)
}

// SummarizeStates is Summarize without the objects' progress: what a
// status keeps while a wave rolls out ("a: Updating, InProgress"), so that
// it is written when an object's state changes, not at every replica.
func SummarizeStates(waiting []Waiting, shown int) string {
	return summarize(waiting, shown, Waiting.State)
}

func summarize(waiting []Waiting, shown int, describe func(Waiting) string) string {
	listed := make([]string, 0, min(len(waiting), shown))
	for _, w := range waiting[:min(len(waiting), shown)] {
		listed = append(listed, describe(w))
	}
	out := strings.Join(listed, "; ")
	if more := len(waiting) - len(listed); more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}

// Blocker is what foreign instances of a component's types keep.
type Blocker struct {
	// Object is the object kept (a CRD that left the manifests); zero when
	// the whole deletion waits.
	Object manifests.ObjectKey
	// Reason names the foreign instances: "1 foreign instance of Gadget.example.com exist".
	Reason string
}

func (b Blocker) String() string {
	if b.Object == (manifests.ObjectKey{}) {
		return b.Reason
	}
	return b.Object.String() + " is kept: " + b.Reason
}
