package component

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ObjectDependency is an object of any kind that must be ready before the
// component is applied: by ReadyExpr (CEL on the object, self) when given,
// else by kstatus, as the engine judges its own objects. It is read in the
// component's target cluster, as the component's identity (its service
// account, when it has one), and while the component waits for it, watched
// by name as that identity (which needs list and watch on it): its changes
// move the component on. It is not the component's: nothing waits for it
// on deletion.
type ObjectDependency struct {
	APIVersion, Kind, Namespace, Name string
	ReadyExpr                         string
}

// ObjectDependencyConfiguration names the objects a component waits for,
// besides the components of DependencyConfiguration. A dependency without a
// namespace is in the component's own namespace (cluster-scoped kinds have
// none).
type ObjectDependencyConfiguration interface {
	GetObjectDependencies() []ObjectDependency
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
func (p *pass[T]) awaitObjectDependencies(ctx context.Context, tg *target) (outcome, bool) {
	if !p.settings.waitsForObjects {
		return outcome{}, false
	}
	for _, dep := range p.settings.objectDependencies {
		rd, err := p.resolveDependency(tg, dep)
		if err != nil {
			tg.objects.release(p.id)
			return p.fail(err), true
		}
		if why := rd.notReady(ctx, tg); why != "" {
			return p.awaitObject(tg, rd, why), true
		}
	}
	tg.objects.release(p.id)
	return outcome{}, false
}

// awaitObject makes the component wait for rd's object: a Pending outcome
// that says why, and why the object is not watched when it is not.
func (p *pass[T]) awaitObject(tg *target, rd resolvedDependency, why string) outcome {
	requeue := p.settings.retry
	if rd.mapping == nil {
		// Its kind is not served (yet): reading it said so.
		tg.objects.release(p.id)
		return outcome{reason: ReasonPending, message: why, requeue: min(requeue, unwatchedRecheck)}
	}
	if err := tg.objects.wait(p.id, rd.ref, rd.mapping.Resource); err != nil {
		why += "; cannot watch it: " + err.Error()
		requeue = min(requeue, unwatchedRecheck)
	}
	return outcome{reason: ReasonPending, message: why, requeue: requeue}
}

// resolvedDependency is an ObjectDependency as its target knows it.
type resolvedDependency struct {
	ref     objectRef
	expr    *engine.ReadyExpr // nil: kstatus decides
	mapping *meta.RESTMapping // nil when the kind is not served
}

// resolveDependency checks dep and finds its kind in the target. A
// dependency without a namespace is in the component's, unless its kind is
// cluster-scoped (unknown kinds count as namespaced; reading them says what
// is wrong).
func (p *pass[T]) resolveDependency(tg *target, dep ObjectDependency) (resolvedDependency, error) {
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
	rd.ref = objectRef{gvk: gvk, NamespacedName: types.NamespacedName{Namespace: dep.Namespace, Name: dep.Name}}
	if rd.ref.Namespace == "" && (rd.mapping == nil || rd.mapping.Scope.Name() != meta.RESTScopeNameRoot) {
		rd.ref.Namespace = p.id.Namespace
	}
	if err := p.checkDependencyRefs([]types.NamespacedName{rd.ref.NamespacedName}); rd.ref.Namespace != "" && err != nil {
		return rd, err
	}
	return rd, nil
}

// notReady reads the object and says why it is not ready ("" when it is).
func (rd resolvedDependency) notReady(ctx context.Context, tg *target) string {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(rd.ref.gvk)
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
