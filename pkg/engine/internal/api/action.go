package api

import (
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Action is what a pass does to an object: the verb of a plan's step, of a
// Change (what Apply would do) and of an ObjectAction (what a pass did). It
// is the one vocabulary of the engine, its results and the CLI's output;
// Past words an action a pass took, as Events and reports name it.
type Action string

// Actions a pass takes, and Diff reports.
const (
	// ActionCreate creates an object that does not exist.
	ActionCreate Action = "create"
	// ActionUpdate writes an object that exists.
	ActionUpdate Action = "update"
	// ActionUnchanged leaves an object as it is (Diff, and a plan's step
	// whose reason says why; a pass records no action for it).
	ActionUnchanged Action = "unchanged"
	// ActionReplace deletes an object to create it again, since an update
	// would change an immutable field (update-policy replace-on-immutable).
	ActionReplace Action = "replace"
	// ActionDelete deletes an object.
	ActionDelete Action = "delete"
	// ActionOrphan releases an object its delete policy keeps: it loses
	// the owner's label and stays in the cluster.
	ActionOrphan Action = "orphan"
	// ActionLeave drops an object from the inventory with nothing to
	// delete, since it was gone already or is held by another owner.
	ActionLeave Action = "leave"
)

// Actions of a plan's steps, before the live objects decide between the
// actions above.
const (
	// ActionApply creates or updates an object, as its live object needs.
	ActionApply Action = "apply"
	// ActionReady waits until an object is ready.
	ActionReady Action = "ready"
	// ActionPurge deletes an object at the end of its purge wave.
	ActionPurge Action = "purge"
	// ActionPrune deletes an object that left the manifests.
	ActionPrune Action = "prune"
	// ActionRunHook applies a delete hook, waits until it is ready and
	// deletes it.
	ActionRunHook Action = "run-hook"
	// ActionRunTest creates a test, waits until it passes or fails, and
	// deletes it as its test-hook policy says once the run is over.
	ActionRunTest Action = "run-test"
)

// pastTense words the actions a pass reports.
var pastTense = map[Action]string{
	ActionCreate: "Created", ActionUpdate: "Updated", ActionUnchanged: "Unchanged",
	ActionReplace: "Replaced", ActionDelete: "Deleted", ActionOrphan: "Orphaned", ActionLeave: "Left",
	ActionApply: "Applied", ActionReady: "Ready", ActionPurge: "Purged",
	ActionPrune: "Pruned", ActionRunHook: "Ran hook", ActionRunTest: "Ran test",
}

// Past words the action as done, capitalised: "Created", "Left". It is the
// reason of the Events a component's reconciler emits.
func (a Action) Past() string {
	if past, ok := pastTense[a]; ok {
		return past
	}
	return string(a)
}

// ObjectAction is one thing a pass did to an object.
type ObjectAction struct {
	Object manifests.ObjectKey
	// Action is what the pass did: ActionCreate, ActionUpdate,
	// ActionReplace, ActionDelete, ActionOrphan or ActionLeave.
	Action Action
	// Detail says why, where the action alone does not: for ActionReplace,
	// the immutable fields ("field spec.template is immutable").
	Detail string
	// Corrected says that the write undid, at an unchanged render, what
	// others did to the object: a drift, or a deletion.
	Corrected bool
}

// String words the action as done: "Created ConfigMap ns/a".
func (a ObjectAction) String() string { return a.Action.Past() + " " + a.Object.String() }
