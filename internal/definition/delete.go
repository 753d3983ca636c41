package definition

import (
	"context"
	"fmt"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// delete deletes a definition once no instance of its kind is left: until
// then it says which ones block it (and keeps serving them, so that they
// can be deleted); then it stops serving the kind and deletes its CRD,
// roles and revisions before it lets the definition go.
func (r *reconciler) delete(ctx context.Context, def *v1alpha1.ComponentDefinition) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(def, r.finalizer()) {
		return ctrl.Result{}, nil
	}
	left, err := r.instancesLeft(ctx, def)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(left) > 0 {
		return ctrl.Result{}, r.blocked(ctx, def, left)
	}
	if err := r.kinds.Stop(def.Name); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.deleteWritten(ctx, def); err != nil {
		return ctrl.Result{}, err
	}
	patch := client.MergeFromWithOptions(def.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(def, r.finalizer())
	if err := r.client.Patch(ctx, def, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("removing the finalizer of ComponentDefinition %s: %w", def.Name, err)
	}
	r.resolved.put(def.Name, nil)
	return ctrl.Result{}, nil
}

// instancesLeft lists the instances of def's kind from the API server
// (not a cache that may lag): none when the kind is not served.
func (r *reconciler) instancesLeft(ctx context.Context, def *v1alpha1.ComponentDefinition) ([]string, error) {
	items, err := listInstances(ctx, r.api, GVK(def))
	if err != nil {
		if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, u := range items {
		out = append(out, u.GetNamespace()+"/"+u.GetName())
	}
	return out, nil
}

// blocked says, in the status, which instances keep def, and serves them.
func (r *reconciler) blocked(ctx context.Context, def *v1alpha1.ComponentDefinition, left []string) error {
	before := def.DeepCopy()
	message := fmt.Sprintf("%d instance(s) of %s remain: %s; the definition is deleted once they are gone",
		len(left), def.Spec.Names.Kind, strings.Join(firsts(left, 10), ", "))
	meta.SetStatusCondition(&def.Status.Conditions, metav1.Condition{Type: component.ConditionReady, Status: metav1.ConditionFalse,
		Reason: component.ReasonDeletionBlocked, Message: message, ObservedGeneration: def.Generation})
	def.Status.Instances = int32(len(left))
	if err := r.writeStatus(ctx, before, def); err != nil {
		return err
	}
	if !r.kinds.Served(def) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := r.client.Get(ctx, client.ObjectKey{Name: crdgen.Name(def)}, crd); err == nil && established(crd) {
			return r.kinds.Serve(def)
		}
	}
	return nil
}

// deleteWritten deletes what the operator wrote for def: its ClusterRoles,
// its CRD (only when it is the operator's for def) and its revisions.
func (r *reconciler) deleteWritten(ctx context.Context, def *v1alpha1.ComponentDefinition) error {
	for _, role := range crdgen.ClusterRoles(r.opts.Name, def) {
		if err := client.IgnoreNotFound(r.client.Delete(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role.Name}})); err != nil {
			return fmt.Errorf("deleting the ClusterRole %s: %w", role.Name, err)
		}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	err := r.api.Get(ctx, client.ObjectKey{Name: crdgen.Name(def)}, crd)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("reading the CRD %s: %w", crdgen.Name(def), err)
	case crd.Labels[r.label] == def.Name:
		if err := client.IgnoreNotFound(r.client.Delete(ctx, crd, client.Preconditions{UID: &crd.UID})); err != nil {
			return fmt.Errorf("deleting the CRD %s: %w", crd.Name, err)
		}
		r.checked.forget(crd.Name)
	}
	err = r.client.DeleteAllOf(ctx, &v1alpha1.ComponentDefinitionRevision{}, client.MatchingLabels{r.label: def.Name})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the revisions of %s: %w", def.Name, err)
	}
	return nil
}

// server serves the kinds of the definitions the main process writes,
// and writes nothing: a shard's.
type server struct {
	cache client.Reader
	kinds *Kinds
}

func (s *server) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	def := &v1alpha1.ComponentDefinition{}
	if err := s.cache.Get(ctx, req.NamespacedName, def); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, s.kinds.Stop(req.Name)
		}
		return ctrl.Result{}, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := s.cache.Get(ctx, client.ObjectKey{Name: crdgen.Name(def)}, crd); err != nil || !established(crd) || def.Status.Revision == 0 {
		return ctrl.Result{RequeueAfter: 5 * time.Second}, client.IgnoreNotFound(err)
	}
	return ctrl.Result{}, s.kinds.Serve(def)
}
