package readiness

import (
	"errors"
	"fmt"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// healthCheckCost bounds the evaluation of one expression (CEL's cost
// units), so that a check cannot hold a pass.
const healthCheckCost = 100_000

// HealthChecks are an owner's manifests.HealthChecks, compiled: they judge
// the live objects of their kinds where kstatus would (readinessOf), so a
// wave waits for what they say.
type HealthChecks []healthCheck

type healthCheck struct {
	group, kind string
	// failed, current and inProgress are nil when not given.
	failed, current, inProgress *check
}

// check is one compiled expression and its source, for messages.
type check struct {
	source  string
	program cel.Program
}

// CompileHealthChecks compiles every expression; the error names each check
// and expression that does not compile or does not yield a bool, as a
// manifests.UserError: a change of the checks, not a retry, fixes it.
func CompileHealthChecks(checks []manifests.HealthCheck) (HealthChecks, error) {
	if len(checks) == 0 {
		return nil, nil
	}
	env, err := cel.NewEnv(cel.Variable("self", cel.DynType))
	if err != nil {
		return nil, fmt.Errorf("health checks: %w", err)
	}
	var out HealthChecks
	var errs []error
	for i, c := range checks {
		gv, err := schema.ParseGroupVersion(c.APIVersion)
		if err != nil || c.Kind == "" {
			errs = append(errs, fmt.Errorf("health check %d: apiVersion %q and kind %q do not name a kind", i, c.APIVersion, c.Kind))
			continue
		}
		h := healthCheck{group: gv.Group, kind: c.Kind}
		for _, e := range []struct {
			name, source string
			into         **check
		}{{"failed", c.Failed, &h.failed}, {"current", c.Current, &h.current}, {"inProgress", c.InProgress, &h.inProgress}} {
			if e.source == "" {
				continue
			}
			compiled, err := compileCheck(env, e.source)
			if err != nil {
				errs = append(errs, fmt.Errorf("health check %d (%s %s) %s %q: %w", i, c.APIVersion, c.Kind, e.name, e.source, err))
				continue
			}
			*e.into = compiled
		}
		out = append(out, h)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, &manifests.UserError{Err: err}
	}
	return out, nil
}

func compileCheck(env *cel.Env, source string) (*check, error) {
	ast, issues := env.Compile(source)
	if issues != nil && issues.Err() != nil {
		return nil, issues.Err()
	}
	if ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
		return nil, fmt.Errorf("yields %s, not a bool", ast.OutputType())
	}
	program, err := env.Program(ast, cel.CostLimit(healthCheckCost))
	if err != nil {
		return nil, err
	}
	return &check{source: source, program: program}, nil
}

// Judge returns what the checks of u's kind say about u, or false when no
// check of its kind has a true expression (kstatus decides then).
func (h HealthChecks) Judge(u *unstructured.Unstructured) (State, bool) {
	gvk := u.GroupVersionKind()
	for _, c := range h {
		if c.group != gvk.Group || c.kind != gvk.Kind {
			continue
		}
		switch {
		case c.failed.holds(u):
			message := "health check failed: " + c.failed.source
			if m, _, _ := unstructured.NestedString(u.Object, "status", "message"); m != "" {
				message += ": " + m
			}
			return State{Status: status.FailedStatus, Message: message}, true
		case c.current.holds(u):
			return State{Status: status.CurrentStatus}, true
		case c.inProgress.holds(u):
			return State{Status: status.InProgressStatus, Message: "health check in progress: " + c.inProgress.source}, true
		case c.current != nil:
			return State{Status: status.InProgressStatus, Message: "waiting for health check: " + c.current.source}, true
		}
	}
	return State{}, false
}

// holds evaluates the expression on u; one that cannot be evaluated (a
// missing field) or is not given is false.
func (c *check) holds(u *unstructured.Unstructured) bool {
	if c == nil {
		return false
	}
	out, _, err := c.program.Eval(map[string]any{"self": u.Object})
	if err != nil {
		return false
	}
	b, ok := out.Value().(bool)
	return ok && b
}

// ReadyExpr is a compiled CEL expression that says whether an object is
// ready, with the object as self (a dependency's readyExpr).
type ReadyExpr struct{ check *check }

// CompileReadyExpr compiles source; an expression that does not compile or
// does not yield a bool is a manifests.UserError.
func CompileReadyExpr(source string) (*ReadyExpr, error) {
	env, err := cel.NewEnv(cel.Variable("self", cel.DynType))
	if err != nil {
		return nil, err
	}
	c, err := compileCheck(env, source)
	if err != nil {
		return nil, &manifests.UserError{Err: fmt.Errorf("readyExpr %q: %w", source, err)}
	}
	return &ReadyExpr{check: c}, nil
}

// Holds tells whether the expression is true for u; one that cannot be
// evaluated on u (a missing field) is false.
func (e *ReadyExpr) Holds(u *unstructured.Unstructured) bool { return e.check.holds(u) }

// String is the expression's source.
func (e *ReadyExpr) String() string { return e.check.source }

// Judge is Readiness with an owner's health checks: what a pass of that
// owner concludes about a live object. The zero Judge has no checks.
type Judge struct{ checks HealthChecks }

// NewJudge compiles checks; one that does not compile is a
// manifests.UserError, as in a pass.
func NewJudge(checks []manifests.HealthCheck) (Judge, error) {
	compiled, err := CompileHealthChecks(checks)
	return Judge{checks: compiled}, err
}

// Readiness is the status a pass gives u: by the health checks of its kind,
// else as the package's Readiness.
func (j Judge) Readiness(u *unstructured.Unstructured, hint manifests.StatusHint) (status.Status, string) {
	if r, judged := j.checks.Judge(u); judged {
		return r.Status, r.Message
	}
	return Readiness(u, hint)
}
