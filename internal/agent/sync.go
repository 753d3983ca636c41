package agent

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// syncer makes the Components of the cluster follow the ComponentWorks of
// the cluster's namespace on the hub, and reports their status back.
type syncer struct {
	// hub reads the ComponentWorks (from a cache of the one namespace) and
	// writes their status; local reads and writes the cluster.
	hub, local client.Client
	// namespace is the cluster's namespace on the hub.
	namespace string
	keys      keys
	version   string
}

// keys are the agent's keys under the operator name.
type keys struct {
	// work labels a Component with the name of its ComponentWork;
	// generation annotates it with the ComponentWork generation it was
	// written from; request is the reconcile request annotation.
	work, generation, request string
}

func keysFor(operator string) keys {
	return keys{
		work:       operator + "/agent-work",
		generation: operator + "/agent-work-generation",
		request:    manifests.Key(operator, component.AnnotationReconcileRequestedAt),
	}
}

// Reconcile brings the Component of one ComponentWork up to date and
// reports on it.
func (s *syncer) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	w := &v1alpha1.ComponentWork{}
	err := s.hub.Get(ctx, req.NamespacedName, w)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, s.release(ctx, req.Name)
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading ComponentWork %s on the hub: %w", req.NamespacedName, err)
	}
	c, err := s.localComponent(ctx, w)
	if err != nil {
		return ctrl.Result{}, err
	}
	if w.Spec.Removal == v1alpha1.WorkRemovalDelete {
		return ctrl.Result{}, s.remove(ctx, w, c)
	}
	if c, err = s.write(ctx, w, c); err != nil {
		return ctrl.Result{}, err
	}
	applied, _ := strconv.ParseInt(c.Annotations[s.keys.generation], 10, 64)
	return ctrl.Result{}, s.report(ctx, w, reportOf(w, c, applied, s.version))
}

// localComponent is the Component w describes on the cluster, nil if
// there is none.
func (s *syncer) localComponent(ctx context.Context, w *v1alpha1.ComponentWork) (*v1alpha1.Component, error) {
	c := &v1alpha1.Component{}
	err := s.local.Get(ctx, client.ObjectKey{Namespace: w.Spec.Namespace, Name: w.Spec.Name}, c)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading Component %s/%s of ComponentWork %s: %w", w.Spec.Namespace, w.Spec.Name, w.Name, err)
	}
	if c.Labels[s.keys.work] != w.Name {
		return nil, fmt.Errorf("Component %s/%s of ComponentWork %s exists on the cluster and the agent did not write it; rename or delete it", w.Spec.Namespace, w.Spec.Name, w.Name)
	}
	return c, nil
}

// write creates the Component of w, or writes w's spec to it when it was
// written from an older generation of w. A Component that is being
// deleted is left to finish.
func (s *syncer) write(ctx context.Context, w *v1alpha1.ComponentWork, c *v1alpha1.Component) (*v1alpha1.Component, error) {
	generation := strconv.FormatInt(w.Generation, 10)
	request := w.Annotations[s.keys.request]
	if c != nil && (!c.DeletionTimestamp.IsZero() ||
		(c.Annotations[s.keys.generation] == generation && c.Annotations[s.keys.request] == request)) {
		return c, nil
	}
	if w.Spec.Component.KubeConfig != nil {
		return nil, fmt.Errorf("ComponentWork %s names a kubeconfig: an agent runs Components on its own cluster only", w.Name)
	}
	create := c == nil
	if create {
		c = &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: w.Spec.Namespace, Name: w.Spec.Name}}
		if err := s.ensureNamespace(ctx, w.Spec.Namespace); err != nil {
			return nil, err
		}
	}
	c.Labels = map[string]string{}
	for k, v := range w.Spec.Labels {
		c.Labels[k] = v
	}
	c.Labels[s.keys.work] = w.Name
	metav1.SetMetaDataAnnotation(&c.ObjectMeta, s.keys.generation, generation)
	if request != "" {
		metav1.SetMetaDataAnnotation(&c.ObjectMeta, s.keys.request, request)
	}
	c.Spec = *w.Spec.Component.DeepCopy()
	var err error
	if create {
		err = s.local.Create(ctx, c)
	} else {
		err = s.local.Update(ctx, c)
	}
	if err != nil {
		return nil, fmt.Errorf("writing Component %s/%s of ComponentWork %s: %w", c.Namespace, c.Name, w.Name, err)
	}
	return c, nil
}

// ensureNamespace creates the namespace of a Component when it is missing.
func (s *syncer) ensureNamespace(ctx context.Context, name string) error {
	err := s.local.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s for a Component: %w", name, err)
	}
	return nil
}

// remove deletes the Component of w (its finalizer deletes its objects)
// and says so in w's status once it is gone.
func (s *syncer) remove(ctx context.Context, w *v1alpha1.ComponentWork, c *v1alpha1.Component) error {
	if c == nil {
		return s.report(ctx, w, removedStatus(w, s.version))
	}
	if c.DeletionTimestamp.IsZero() {
		if err := s.local.Delete(ctx, c, client.Preconditions{UID: &c.UID}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting Component %s/%s of ComponentWork %s: %w", c.Namespace, c.Name, w.Name, err)
		}
	}
	applied, _ := strconv.ParseInt(c.Annotations[s.keys.generation], 10, 64)
	return s.report(ctx, w, reportOf(w, c, applied, s.version))
}

// release lets the Components of a ComponentWork that is gone (without
// asking for a removal) stay as Components of their own: the agent stops
// writing them, their objects stay. Not knowing why it went is no reason
// to delete anything.
func (s *syncer) release(ctx context.Context, work string) error {
	list := &v1alpha1.ComponentList{}
	if err := s.local.List(ctx, list, client.MatchingLabels{s.keys.work: work}); err != nil {
		return fmt.Errorf("listing the Components of ComponentWork %s: %w", work, err)
	}
	for i := range list.Items {
		c := &list.Items[i]
		patch := client.MergeFrom(c.DeepCopy())
		delete(c.Labels, s.keys.work)
		delete(c.Annotations, s.keys.generation)
		if err := s.local.Patch(ctx, c, patch); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("releasing Component %s/%s, whose ComponentWork %s is gone: %w", c.Namespace, c.Name, work, err)
		}
		ctrl.LoggerFrom(ctx).Info("released a Component whose ComponentWork is gone: it stays, with its objects", "component", c.Namespace+"/"+c.Name)
	}
	return nil
}

// report writes status to w on the hub when it differs.
func (s *syncer) report(ctx context.Context, w *v1alpha1.ComponentWork, status v1alpha1.ComponentWorkStatus) error {
	if equality.Semantic.DeepEqual(w.Status, status) {
		return nil
	}
	w = w.DeepCopy()
	w.Status = status
	if err := s.hub.Status().Update(ctx, w); err != nil {
		if apierrors.IsConflict(err) {
			return nil // the newer ComponentWork's event brings the next pass
		}
		return fmt.Errorf("writing the status of ComponentWork %s/%s on the hub: %w", w.Namespace, w.Name, err)
	}
	return nil
}
