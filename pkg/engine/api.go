package engine

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The words of a pass's result — what it does to an object, the groups of
// its plan, where it stopped, what it waits for, how a step fails — are
// declared in package internal/api, and how a live object is judged in
// package internal/readiness, where the engine's own packages find them;
// these are the same names as users know them. Their fields and methods are
// documented there.

type (
	// Action is what a pass does to an object: the verb of a plan's step,
	// of a Change (what Apply would do) and of an ObjectAction (what a pass
	// did); Past words it as Events and reports name it.
	Action = api.Action
	// ObjectAction is what a pass did to one object.
	ObjectAction = api.ObjectAction
	// PlanGroupKind is what a group of a pass's plan does: apply a wave,
	// wait for it, prune, delete, run a hook or a test.
	PlanGroupKind = api.PlanGroupKind
	// Stop is where a pass stopped: the kind, wave and stage of the group
	// it did not get past.
	Stop = api.Stop
	// Result is what one pass did and found: the inventory to persist,
	// whether it is done, what it waits for, what blocks it, its actions.
	Result = api.Result
	// Waiting is an object a pass waits for, and why.
	Waiting = api.Waiting
	// Blocker is what keeps a deletion from going on (a foreign instance).
	Blocker = api.Blocker
	// Drift is an object found changed out of band.
	Drift = api.Drift
)

// Actions a pass takes, and Diff reports.
const (
	ActionCreate    = api.ActionCreate
	ActionUpdate    = api.ActionUpdate
	ActionUnchanged = api.ActionUnchanged
	ActionReplace   = api.ActionReplace
	ActionDelete    = api.ActionDelete
	ActionOrphan    = api.ActionOrphan
	ActionLeave     = api.ActionLeave
)

// Actions of a plan's steps, before the live objects decide between the
// actions above.
const (
	ActionApply   = api.ActionApply
	ActionReady   = api.ActionReady
	ActionPurge   = api.ActionPurge
	ActionPrune   = api.ActionPrune
	ActionRunHook = api.ActionRunHook
	ActionRunTest = api.ActionRunTest
)

// The kinds of plan group.
const (
	GroupNone     = api.GroupNone
	GroupApply    = api.GroupApply
	GroupWait     = api.GroupWait
	GroupPurge    = api.GroupPurge
	GroupPrune    = api.GroupPrune
	GroupDelete   = api.GroupDelete
	GroupHook     = api.GroupHook
	GroupTest     = api.GroupTest
	GroupExternal = api.GroupExternal
)

// Summarize names the first shown waiting objects with their progress and
// says how many more there are: "a: InProgress: Available: 0/2; b: being
// deleted and 3 more" ("" for none).
func Summarize(waiting []Waiting, shown int) string { return api.Summarize(waiting, shown) }

// SummarizeStates is Summarize without the objects' progress: what a
// status keeps while a wave rolls out ("a: Updating, InProgress"), so that
// it is written when an object's state changes, not at every replica.
func SummarizeStates(waiting []Waiting, shown int) string {
	return api.SummarizeStates(waiting, shown)
}

// The errors of a pass.
type (
	// ObjectError is a failed step of a pass: which object, which action,
	// and why.
	ObjectError = api.ObjectError
	// MissingNamespaceError is an object whose namespace does not exist
	// while the namespace policy forbids creating it.
	MissingNamespaceError = api.MissingNamespaceError
	// ImmutableFieldError is an update that would change fields the API
	// server does not let change.
	ImmutableFieldError = api.ImmutableFieldError
)

// NeedsChange tells whether err is one that only a change fixes: a
// UserError, an invalid annotation, a namespace the policy may not create, an
// immutable field,
// or the API server refusing the request itself (forbidden, unauthorized,
// invalid, bad request) rather than failing to serve it.
func NeedsChange(err error) bool { return api.NeedsChange(err) }

// Readiness returns what wavekit concludes about a live object, as the
// waves use it: its kstatus status (Current means ready) with the rules for
// CRDs, APIServices and Jobs, those of StatefulSets and DaemonSets with
// updateStrategy OnDelete and paused Deployments, and those of hint, and a
// message for any status other than Current. Tools that show an applied
// object's state (wavekit status) use it, so they agree with what a pass
// waits for.
func Readiness(u *unstructured.Unstructured, hint manifests.StatusHint) (status.Status, string) {
	return readiness.Readiness(u, hint)
}

// ReadyExpr is a compiled CEL expression that says whether an object is
// ready, with the object as self (a dependency's readyExpr).
type ReadyExpr = readiness.ReadyExpr

// CompileReadyExpr compiles source; an expression that does not compile or
// does not yield a bool is a manifests.UserError.
func CompileReadyExpr(source string) (*ReadyExpr, error) { return readiness.CompileReadyExpr(source) }

// Judge is Readiness with an owner's health checks: what a pass of that
// owner concludes about a live object. The zero Judge has no checks.
type Judge = readiness.Judge

// NewJudge compiles checks; one that does not compile is a
// manifests.UserError, as in a pass.
func NewJudge(checks []manifests.HealthCheck) (Judge, error) { return readiness.NewJudge(checks) }
