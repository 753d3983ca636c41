package fleet

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// workKey is the namespace and name of the ComponentWork a view is of.
func (r *Reconciler) workKey(c *v1alpha1.Component) client.ObjectKey {
	ns, name, _ := strings.Cut(c.Annotations[r.keys.viewOf], "/")
	return client.ObjectKey{Namespace: ns, Name: name}
}

// writeWork creates the ComponentWork of the pulled member m, or writes
// the current template and wave to it. It is named after the set, in the
// cluster's namespace on the hub, which must exist: registering the
// cluster's agent makes it.
func (r *Reconciler) writeWork(ctx context.Context, set *v1alpha1.ComponentSet, m *member) error {
	w := &v1alpha1.ComponentWork{}
	key := client.ObjectKey{Namespace: WorkNamespace(set.Namespace, m.Cluster.Name), Name: set.Name}
	exists := m.Component != nil
	if exists {
		key = r.workKey(m.Component)
		if err := r.client.Get(ctx, key, w); err != nil {
			return fmt.Errorf("reading ComponentWork %s of cluster %s: %w", key, m.Cluster.Name, err)
		}
	} else {
		w.Namespace, w.Name = key.Namespace, key.Name
	}
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels[r.keys.setNamespace], w.Labels[r.keys.setName] = set.Namespace, set.Name
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	w.Annotations[r.keys.clusterName] = m.Cluster.Name
	w.Annotations[r.keys.specHash] = m.Desired.Hash
	w.Annotations[r.keys.wave] = strconv.Itoa(m.Wave)
	w.Spec.Namespace, w.Spec.Name = set.Namespace, componentName(set.Name, m.Cluster.Name)
	w.Spec.Labels = m.Desired.Labels
	w.Spec.Component = m.Desired.Spec
	if exists {
		if err := r.client.Update(ctx, w); err != nil {
			return fmt.Errorf("writing the template to ComponentWork %s of cluster %s: %w", key, m.Cluster.Name, err)
		}
		return nil
	}
	err := r.client.Create(ctx, w)
	switch {
	case apierrors.IsAlreadyExists(err):
		return fmt.Errorf("creating ComponentWork %s for cluster %s: one of that name exists that ComponentSet %s does not own", key, m.Cluster.Name, set.Name)
	case apierrors.IsNotFound(err):
		return fmt.Errorf("creating ComponentWork %s for cluster %s: the cluster's namespace %s on the hub does not exist: register the cluster's agent (wavekit agent register)", key, m.Cluster.Name, key.Namespace)
	case err != nil:
		return fmt.Errorf("creating ComponentWork %s for cluster %s: %w", key, m.Cluster.Name, err)
	}
	return nil
}

// departPulled takes the view c of a pulled cluster the set removes one
// step further, as depart does a pushed one's Component: it asks the
// agent to delete the Component (spec.removal) and deletes the
// ComponentWork once the agent says it is done (Removed). Nothing is
// deleted on the hub before that: an agent that does not answer for
// spec.unreachableTimeout leaves its ComponentWork behind, still asking,
// and the agent removes the Component when it is back (the ComponentWork
// goes then: sweepRemoved).
func (r *Reconciler) departPulled(ctx context.Context, set *v1alpha1.ComponentSet, c *v1alpha1.Component, now time.Time) (departure, time.Duration, error) {
	d := departure{Cluster: memberKey(c, r.keys), Component: c, State: departLeaving}
	key := r.workKey(c)
	w := &v1alpha1.ComponentWork{}
	if err := r.client.Get(ctx, key, w); err != nil {
		return d, 0, client.IgnoreNotFound(err)
	}
	if w.Spec.Removal == "" {
		patch := client.MergeFromWithOptions(w.DeepCopy(), client.MergeFromWithOptimisticLock{})
		w.Spec.Removal = v1alpha1.WorkRemovalDelete
		metav1.SetMetaDataAnnotation(&w.ObjectMeta, r.keys.removalRequested, now.UTC().Format(time.RFC3339))
		if err := r.client.Patch(ctx, w, patch); client.IgnoreNotFound(err) != nil {
			return d, 0, fmt.Errorf("asking the agent of cluster %s to delete Component %s/%s (ComponentWork %s): %w", d.Cluster, c.Namespace, c.Name, key, err)
		}
		d.Message = "its agent is asked to delete Component " + c.Name + " and its objects on the cluster"
		return d, 0, nil
	}
	if meta.IsStatusConditionTrue(w.Status.Conditions, v1alpha1.WorkConditionRemoved) {
		if err := r.client.Delete(ctx, w, client.Preconditions{UID: &w.UID}); client.IgnoreNotFound(err) != nil {
			return d, 0, fmt.Errorf("deleting ComponentWork %s of cluster %s, whose Component its agent removed: %w", key, d.Cluster, err)
		}
		d.Message = "its agent deleted Component " + c.Name + " and its objects on the cluster"
		return d, 0, nil
	}
	d.Message = "its agent is deleting Component " + c.Name + " and its objects on the cluster"
	ready := c.Status.ReadyCondition()
	if ready != nil && ready.Message != "" {
		d.Message += ": " + ready.Reason + ": " + ready.Message
	}
	if !isUnreachable(ready) {
		return d, 0, nil
	}
	timeout := set.Spec.GetUnreachableTimeout()
	if left := c.DeletionTimestamp.Add(timeout).Sub(now); left > 0 {
		return d, left, nil
	}
	d.State = departLeftBehind
	d.Message = fmt.Sprintf("its agent has not answered for %s: ComponentWork %s stays, asking it to delete Component %s and its objects when it is back", timeout, key, c.Name)
	return d, 0, r.leaveWorkBehind(ctx, set, w, d, now)
}

// leaveWorkBehind marks w, the first time, as left behind (the time) and
// records a Warning Event of the set (LeftBehind) that names it, as for a
// pushed cluster's Component.
func (r *Reconciler) leaveWorkBehind(ctx context.Context, set *v1alpha1.ComponentSet, w *v1alpha1.ComponentWork, d departure, now time.Time) error {
	if _, marked := w.Annotations[r.keys.leftBehind]; marked {
		return nil
	}
	patch := client.MergeFrom(w.DeepCopy())
	metav1.SetMetaDataAnnotation(&w.ObjectMeta, r.keys.leftBehind, now.UTC().Format(time.RFC3339))
	if err := r.client.Patch(ctx, w, patch); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("marking ComponentWork %s/%s left behind: %w", w.Namespace, w.Name, err)
	}
	r.recorder.Eventf(set, nil, "Warning", ReasonLeftBehind, "Delete", "%s", bound(fmt.Sprintf("cluster %s %s (kubectl get componentwork -n %s %s)",
		d.Cluster, d.Message, w.Namespace, w.Name), maxEventNote))
	return nil
}

// releasePulled releases the Component of a pulled cluster (removal policy
// Orphan): the ComponentWork goes without spec.removal, and the agent,
// finding it gone, leaves the Component and its objects on the cluster as
// a Component of its own.
func (r *Reconciler) releasePulled(ctx context.Context, c *v1alpha1.Component) error {
	w := &v1alpha1.ComponentWork{ObjectMeta: metav1.ObjectMeta{Namespace: r.workKey(c).Namespace, Name: r.workKey(c).Name}}
	if err := r.client.Delete(ctx, w, client.Preconditions{UID: &c.UID}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("releasing Component %s/%s of cluster %s (deleting ComponentWork %s): %w", c.Namespace, c.Name, memberKey(c, r.keys), r.workKey(c), err)
	}
	return nil
}

// requestTarget is the object a reconcile request is passed on to for
// the Component c: c, or for a view its ComponentWork, whose agent passes
// it on to the Component on its cluster.
func (r *Reconciler) requestTarget(c *v1alpha1.Component) client.Object {
	if !r.isPulled(c) {
		return c.DeepCopy()
	}
	key := r.workKey(c)
	return &v1alpha1.ComponentWork{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
}
