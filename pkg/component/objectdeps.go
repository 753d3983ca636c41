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
// account, when it has one). It is not the component's: nothing waits for
// it on deletion.
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

// objectDependencyRecheck is how soon a component waiting for an object
// looks again: the object's changes send the reconciler no events.
const objectDependencyRecheck = 2 * time.Second

// awaitObjectDependencies returns a Pending outcome while an object the
// component depends on is missing or not ready, an error outcome for a
// readyExpr that does not compile or a refused reference, and false when
// the component may be applied.
func (rn *run[T]) awaitObjectDependencies(ctx context.Context, tg *target) (outcome, bool) {
	oc, ok := optional[ObjectDependencyConfiguration](rn.component)
	if !ok {
		return outcome{}, false
	}
	for _, dep := range oc.GetObjectDependencies() {
		why, err := rn.objectNotReady(ctx, tg, dep)
		if err != nil {
			return rn.fail(err), true
		}
		if why != "" {
			return outcome{reason: ReasonPending, message: why, requeue: min(objectDependencyRecheck, rn.r.retryInterval(rn.component))}, true
		}
	}
	return outcome{}, false
}

// objectNotReady says why dep is not ready ("" when it is).
func (rn *run[T]) objectNotReady(ctx context.Context, tg *target, dep ObjectDependency) (string, error) {
	gv, err := schema.ParseGroupVersion(dep.APIVersion)
	if err != nil || dep.Kind == "" {
		return "", &manifests.UserError{Err: fmt.Errorf("dependency %s %s/%s: apiVersion and kind do not name a kind", dep.APIVersion, dep.Kind, dep.Name)}
	}
	var expr *engine.ReadyExpr
	if dep.ReadyExpr != "" {
		if expr, err = engine.CompileReadyExpr(dep.ReadyExpr); err != nil {
			return "", fmt.Errorf("dependency %s %s: %w", dep.Kind, dep.Name, err)
		}
	}
	id := types.NamespacedName{Namespace: dep.Namespace, Name: dep.Name}
	if id.Namespace == "" && rn.namespaced(tg, gv.WithKind(dep.Kind)) {
		id.Namespace = rn.id.Namespace
	}
	if err := rn.checkDependencyRefs([]types.NamespacedName{id}); id.Namespace != "" && err != nil {
		return "", err
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gv.WithKind(dep.Kind))
	what := fmt.Sprintf("waiting for dependency %s %s", dep.Kind, id)
	switch err := tg.Client.Get(ctx, id, obj); {
	case apierrors.IsNotFound(err):
		return what + ": it does not exist", nil
	case err != nil:
		return what + ": reading it: " + err.Error(), nil
	case expr != nil && !expr.Holds(obj):
		return what + ": readyExpr " + expr.String() + " is not true", nil
	case expr == nil:
		if st, message := engine.Readiness(obj, manifests.StatusHint{}); st != "Current" {
			return what + ": it is " + string(st) + ": " + message, nil
		}
	}
	return "", nil
}

// namespaced tells whether the kind is namespaced (unknown kinds count as
// namespaced; reading them says what is wrong).
func (rn *run[T]) namespaced(tg *target, gvk schema.GroupVersionKind) bool {
	mapping, err := tg.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	return err != nil || mapping.Scope.Name() != meta.RESTScopeNameRoot
}
