package engine

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

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
