package component

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// awaitDependencies returns a Pending outcome while a dependency is not
// Ready at its current generation, an error outcome for a dependency cycle
// or a refused reference, and false when the component may be applied.
func (p *pass) awaitDependencies(ctx context.Context) (outcome.Outcome, bool) {
	deps := p.settings.Dependencies
	if len(deps) == 0 {
		return outcome.Outcome{}, false
	}
	if err := p.checkDependencyRefs(deps); err != nil {
		return p.fail(err), true
	}
	if cycle := p.r.deps.Path(ctx, p.id, p.id); cycle != nil {
		message := "dependency cycle: " + joinIDs(cycle, " → ") + ": remove one of these dependencies"
		return outcome.Outcome{Reason: ReasonError, Message: message, Requeue: p.settings.Retry, Stalled: true}, true
	}
	for _, dep := range deps {
		if why := p.r.deps.NotReady(ctx, dep); why != "" {
			// Its status changes arrive as events; the requeue is a backstop.
			message := fmt.Sprintf("waiting for dependency %s: %s", dep, why)
			return outcome.Outcome{Reason: ReasonPending, Message: message, Requeue: p.settings.Retry}, true
		}
	}
	return outcome.Outcome{}, false
}

// checkDependencyRefs refuses dependencies in other namespaces when the
// reconciler refuses cross-namespace references.
func (p *pass) checkDependencyRefs(deps []types.NamespacedName) error {
	if !p.r.opts.NoCrossNamespaceRefs {
		return nil
	}
	for _, d := range deps {
		if d.Namespace != p.id.Namespace {
			return &manifests.UserError{Err: fmt.Errorf("dependency %s is not in the component's namespace %s: cross-namespace references are refused (NoCrossNamespaceRefs, --no-cross-namespace-refs)", d, p.id.Namespace)}
		}
	}
	return nil
}

// dependents returns the components that depend on the component being
// run, except those in a dependency cycle with it (deleting them waits for
// neither, so that a cycle cannot block deletion for ever).
func (p *pass) dependents(ctx context.Context) ([]types.NamespacedName, error) {
	all, err := p.r.deps.DependentsOf(ctx, p.id)
	if err != nil {
		return nil, err
	}
	var out []types.NamespacedName
	for _, d := range all {
		if d != p.id && p.r.deps.Path(ctx, p.id, d) == nil {
			out = append(out, d)
		}
	}
	return out, nil
}

// awaitDependents returns a DeletionPending outcome while components that
// depend on this one exist, and false when it may be deleted.
func (p *pass) awaitDependents(ctx context.Context) (outcome.Outcome, bool) {
	dependents, err := p.dependents(ctx)
	if err != nil {
		return p.fail(err), true
	}
	if len(dependents) == 0 {
		return outcome.Outcome{}, false
	}
	names, verb := joinIDs(first(dependents, 5), ", "), "depends"
	if len(dependents) > 1 {
		verb = "depend"
	}
	if len(dependents) > 5 {
		names += fmt.Sprintf(" and %d more", len(dependents)-5)
	}
	message := fmt.Sprintf("deletion waits for %s, which %s on it", names, verb)
	// Their deletion arrives as an event; the requeue is a backstop.
	return outcome.Outcome{Reason: ReasonDeletionBlocked, Message: message, Requeue: p.settings.Retry}, true
}

// unwatchedRecheck is how soon a component waiting for an object it cannot
// watch (its kind is not served, or its identity may not list and watch it)
// looks again. A watched object moves the component by its events; the
// component's retry interval is only a safety net then.
const unwatchedRecheck = 10 * time.Second

// awaitObjectDependencies returns a Pending outcome while an object the
// component depends on is missing or not ready, an error outcome for a
// readyExpr that does not compile or a refused reference, and false when
// the component may be applied. While the component waits, the watch of
// that one object enqueues it; it stops once the component waits no more.
func (p *pass) awaitObjectDependencies(ctx context.Context, tg *targets.Target) (outcome.Outcome, bool) {
	if !p.settings.WaitsForObjects {
		return outcome.Outcome{}, false
	}
	for _, dep := range p.settings.ObjectDependencies {
		rd, err := p.resolveDependency(tg, dep)
		if err != nil {
			tg.Objects.Release(p.id)
			return p.fail(err), true
		}
		if why := rd.notReady(ctx, tg); why != "" {
			return p.awaitObject(tg, rd, why), true
		}
	}
	tg.Objects.Release(p.id)
	return outcome.Outcome{}, false
}

// awaitObject makes the component wait for rd's object: a Pending outcome
// that says why, and why the object is not watched when it is not.
func (p *pass) awaitObject(tg *targets.Target, rd resolvedDependency, why string) outcome.Outcome {
	requeue := p.settings.Retry
	if rd.mapping == nil {
		// Its kind is not served (yet): reading it said so.
		tg.Objects.Release(p.id)
		return outcome.Outcome{Reason: ReasonPending, Message: why, Requeue: min(requeue, unwatchedRecheck)}
	}
	if err := tg.Objects.Wait(p.id, rd.ref, rd.mapping.Resource); err != nil {
		why += "; cannot watch it: " + err.Error()
		requeue = min(requeue, unwatchedRecheck)
	}
	return outcome.Outcome{Reason: ReasonPending, Message: why, Requeue: requeue}
}

// resolvedDependency is an ObjectDependency as its target knows it.
type resolvedDependency struct {
	ref     targets.ObjectRef
	expr    *engine.ReadyExpr // nil: kstatus decides
	mapping *meta.RESTMapping // nil when the kind is not served
}

// resolveDependency checks dep and finds its kind in the target. A
// dependency without a namespace is in the component's, unless its kind is
// cluster-scoped (unknown kinds count as namespaced; reading them says what
// is wrong).
func (p *pass) resolveDependency(tg *targets.Target, dep ObjectDependency) (resolvedDependency, error) {
	var rd resolvedDependency
	gv, err := schema.ParseGroupVersion(dep.APIVersion)
	if err != nil || dep.Kind == "" {
		return rd, &manifests.UserError{Err: fmt.Errorf("dependency %s %s/%s: apiVersion and kind do not name a kind", dep.APIVersion, dep.Kind, dep.Name)}
	}
	if dep.ReadyExpr != "" {
		if rd.expr, err = engine.CompileReadyExpr(dep.ReadyExpr); err != nil {
			return rd, fmt.Errorf("dependency %s %s: %w", dep.Kind, dep.Name, err)
		}
	}
	gvk := gv.WithKind(dep.Kind)
	if mapping, err := tg.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
		rd.mapping = mapping
	}
	rd.ref = targets.ObjectRef{GVK: gvk, NamespacedName: types.NamespacedName{Namespace: dep.Namespace, Name: dep.Name}}
	if rd.ref.Namespace == "" && (rd.mapping == nil || rd.mapping.Scope.Name() != meta.RESTScopeNameRoot) {
		rd.ref.Namespace = p.id.Namespace
	}
	if err := p.checkDependencyRefs([]types.NamespacedName{rd.ref.NamespacedName}); rd.ref.Namespace != "" && err != nil {
		return rd, err
	}
	return rd, nil
}

// notReady reads the object and says why it is not ready ("" when it is).
func (rd resolvedDependency) notReady(ctx context.Context, tg *targets.Target) string {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(rd.ref.GVK)
	what := "waiting for dependency " + rd.ref.String()
	switch err := tg.Client.Get(ctx, rd.ref.NamespacedName, obj); {
	case apierrors.IsNotFound(err):
		return what + ": it does not exist"
	case err != nil:
		return what + ": reading it: " + err.Error()
	case rd.expr != nil && !rd.expr.Holds(obj):
		return what + ": readyExpr " + rd.expr.String() + " is not true"
	case rd.expr == nil:
		if st, message := engine.Readiness(obj, manifests.StatusHint{}); st != "Current" {
			return what + ": it is " + string(st) + ": " + message
		}
	}
	return ""
}

func first[E any](s []E, n int) []E { return s[:min(n, len(s))] }

func joinIDs(ids []types.NamespacedName, sep string) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id.String()
	}
	return strings.Join(names, sep)
}
