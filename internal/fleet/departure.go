package fleet

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// departState is where the Component of a cluster the set removes stands:
// one that left the selection (removal policy Delete), or any when the set
// is deleted.
type departState string

const (
	// departLeaving: the Component is being deleted; its finalizer deletes
	// the objects on the cluster.
	departLeaving departState = "leaving"
	// departLeftBehind: the cluster has not answered for
	// spec.unreachableTimeout; the Component stays, being deleted, and
	// deletes the objects when the cluster answers again, with the
	// cluster's Secret, which is still there.
	departLeftBehind departState = "left behind"
	// departReleased: the set could not delete the objects and let the
	// Component go without them (status.leftClusters).
	departReleased departState = "left"
)

// departure is one Component the set removes, and where it stands.
type departure struct {
	Cluster   string
	Component *v1alpha1.Component
	State     departState
	Message   string
}

// credentials are what a Component can reach its cluster with.
type credentials int

const (
	// credsSecret: the Secret its spec names (the cluster's, or already
	// the set's copy) exists.
	credsSecret credentials = iota
	// credsCopy: the cluster's Secret is gone, the set's copy is there.
	credsCopy
	// credsNone: neither.
	credsNone
)

// depart takes the Component c of a cluster the set removes one step
// further, and says where it stands and when to look again (0: at the next
// event). With the cluster's Secret there, c is deleted and its finalizer
// deletes the objects; with the Secret gone, c is first pointed to the
// set's copy of it. The set lets c go without its objects — status line,
// status.leftClusters and a Warning Event name them — when no kubeconfig is
// left at all, or when only the copy is left and, spec.unreachableTimeout
// after the deletion began, the cluster does not answer or the deletion
// fails (its owner deleted the cluster's credentials: the set does not keep
// them for ever). With the
// Secret still there, such a Component is left behind, being deleted, and
// deletes the objects when the cluster answers again. Nothing is deleted on
// a cluster for want of knowing: an unreachable cluster keeps its objects.
func (r *Reconciler) depart(ctx context.Context, set *v1alpha1.ComponentSet, c *v1alpha1.Component, now time.Time) (departure, time.Duration, error) {
	if r.isPulled(c) {
		return r.departPulled(ctx, set, c, now)
	}
	d := departure{Cluster: memberKey(c, r.keys), Component: c, State: departLeaving}
	creds, err := r.credentialsOf(ctx, c)
	if err != nil {
		return d, 0, err
	}
	switch {
	case creds == credsNone:
		why := fmt.Sprintf("its kubeconfig Secret %s is gone and the set has no copy of it", c.Spec.KubeConfig.Name)
		if c.Spec.KubeConfig.Name == copyName(c.Name) {
			why = "its kubeconfig Secret is gone and so is the set's copy of it"
		}
		return d, 0, r.abandon(ctx, set, &d, why, now)
	case creds == credsCopy && c.Spec.KubeConfig.Name != copyName(c.Name):
		if err := r.pointToCopy(ctx, c); err != nil {
			return d, 0, err
		}
	}
	if c.DeletionTimestamp.IsZero() {
		if err := r.client.Delete(ctx, c, client.Preconditions{UID: &c.UID}); client.IgnoreNotFound(err) != nil {
			return d, 0, fmt.Errorf("deleting Component %s/%s of cluster %s: %w", c.Namespace, c.Name, d.Cluster, err)
		}
		d.Message = "its Component " + c.Name + " is being deleted, and its objects on the cluster with it"
		return d, 0, nil
	}
	d.Message = deletingMessage(c, creds == credsCopy)
	timeout := set.Spec.GetUnreachableTimeout()
	ready := c.Status.ReadyCondition()
	if !isUnreachable(ready) && (creds != credsCopy || !failing(ready)) {
		return d, 0, nil
	}
	if left := c.DeletionTimestamp.Add(timeout).Sub(now); left > 0 {
		return d, left, nil
	}
	if creds == credsCopy {
		why := fmt.Sprintf("its kubeconfig Secret is gone and the cluster has not answered for %s", timeout)
		if !isUnreachable(ready) {
			why = fmt.Sprintf("its kubeconfig Secret is gone and its objects could not be deleted for %s: %s: %s", timeout, ready.Reason, bound(ready.Message, 200))
		}
		return d, 0, r.abandon(ctx, set, &d, why, now)
	}
	d.State = departLeftBehind
	d.Message = fmt.Sprintf("has not answered for %s: its Component %s stays, being deleted, with %d objects on the cluster, and deletes them when the cluster answers again",
		timeout, c.Name, len(c.Status.Inventory))
	return d, 0, r.leaveBehind(ctx, set, c, timeout, now)
}

// failing tells whether a deleting Component's Ready condition says it
// fails rather than waits: anything but the deletion under way (Deleting)
// or held by other people's instances of its CRDs (DeletionBlocked). With
// only the set's copy of a kubeconfig left, a cluster that refuses those
// credentials (its owner revoked them with the Secret) cannot be cleaned
// any more than one that does not answer.
func failing(ready *metav1.Condition) bool {
	return ready != nil && ready.Status != metav1.ConditionTrue &&
		ready.Reason != component.ReasonDeleting && ready.Reason != component.ReasonDeletionBlocked
}

// deletingMessage says what the Component c of a departing cluster is
// doing, by its Ready condition.
func deletingMessage(c *v1alpha1.Component, onCopy bool) string {
	message := "its Component " + c.Name + " is deleting its objects on the cluster"
	if onCopy {
		message += " with the set's copy of its kubeconfig (its Secret is gone)"
	}
	if ready := c.Status.ReadyCondition(); ready != nil && ready.Message != "" {
		message += ": " + ready.Reason + ": " + ready.Message
	}
	return message
}

// credentialsOf tells what c can reach its cluster with. A Secret the
// cache does not have is looked for on the API server before it counts as
// gone.
func (r *Reconciler) credentialsOf(ctx context.Context, c *v1alpha1.Component) (credentials, error) {
	ref := c.Spec.KubeConfig
	if ref == nil {
		return credsSecret, nil // not the set's making: its own deletion decides
	}
	if ref.Name != copyName(c.Name) {
		exists, err := r.secretExists(ctx, c, ref.Name)
		if err != nil || exists {
			return credsSecret, err
		}
	}
	exists, err := r.secretExists(ctx, c, copyName(c.Name))
	if err != nil || exists {
		return credsCopy, err
	}
	return credsNone, nil
}

// secretExists tells whether the Secret name of c's namespace exists (the
// set's copy counts only when c owns it): in the cache, or else on the API
// server.
func (r *Reconciler) secretExists(ctx context.Context, c *v1alpha1.Component, name string) (bool, error) {
	m, found, err := r.cachedSecret(ctx, c.Namespace, name)
	if err == nil && !found {
		m, found, err = r.secretMetadata(ctx, r.live, c.Namespace, name)
	}
	if err != nil || !found {
		return false, err
	}
	return name != copyName(c.Name) || metav1.IsControlledBy(m, c), nil
}

// pointToCopy points c's spec.kubeConfig to the set's copy of its Secret.
func (r *Reconciler) pointToCopy(ctx context.Context, c *v1alpha1.Component) error {
	patch := client.MergeFromWithOptions(c.DeepCopy(), client.MergeFromWithOptimisticLock{})
	c.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: copyName(c.Name), Key: c.Spec.KubeConfig.Key}
	if err := r.client.Patch(ctx, c, patch); err != nil {
		return fmt.Errorf("pointing Component %s/%s to the set's copy of its kubeconfig, Secret %s: %w", c.Namespace, c.Name, copyName(c.Name), err)
	}
	return nil
}

// abandon lets the Component of d go without deleting its objects, for
// why. It first records the cluster and the objects left there in the
// set's status, written at once so that the record outlives the Component;
// then it asks the Component's finalizer to leave the objects as they are
// (its own delete-policy annotation, orphan) and deletes it; a Warning
// Event (ObjectsLeft) names the objects, once. A Component without objects
// goes without a record.
func (r *Reconciler) abandon(ctx context.Context, set *v1alpha1.ComponentSet, d *departure, why string, now time.Time) error {
	// The cache may show a Component whose finalizer has just finished
	// (and whose copy went with it): only the API server tells what is left.
	c := &v1alpha1.Component{}
	if err := r.live.Get(ctx, client.ObjectKeyFromObject(d.Component), c); err != nil {
		return client.IgnoreNotFound(err)
	}
	if c.UID != d.Component.UID {
		return nil // another Component of that name: not this departure's
	}
	d.Component = c
	d.State, d.Message = departReleased, why
	left := leftClusterOf(d.Cluster, c, why, now)
	recorded := false
	if left.ObjectCount > 0 {
		if recorded = recordLeft(&set.Status, left); recorded {
			if err := r.client.Status().Update(ctx, set); err != nil {
				return fmt.Errorf("recording in ComponentSet %s/%s the objects left on cluster %s: %w", set.Namespace, set.Name, d.Cluster, err)
			}
		}
	}
	if c.Annotations[r.keys.deletePolicy] != string(manifests.DeleteOrphan) {
		patch := client.MergeFrom(c.DeepCopy())
		metav1.SetMetaDataAnnotation(&c.ObjectMeta, r.keys.deletePolicy, string(manifests.DeleteOrphan))
		if err := r.client.Patch(ctx, c, patch); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("releasing Component %s/%s of cluster %s, whose objects stay: %w", c.Namespace, c.Name, d.Cluster, err)
		}
	}
	if c.DeletionTimestamp.IsZero() {
		if err := r.client.Delete(ctx, c, client.Preconditions{UID: &c.UID}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting Component %s/%s of cluster %s, whose objects stay: %w", c.Namespace, c.Name, d.Cluster, err)
		}
	}
	if recorded {
		r.recorder.Eventf(set, nil, "Warning", ReasonObjectsLeft, "Remove", "%s", bound(fmt.Sprintf(
			"cluster %s left and %s: its Component %s is released and %s left on the cluster: %s",
			d.Cluster, why, c.Name, objectCount(left.ObjectCount), leftObjects(left)), maxEventNote))
	}
	return nil
}

// leaveBehind marks c, the first time, as left behind (the time) and
// records an Event of the set that names it.
func (r *Reconciler) leaveBehind(ctx context.Context, set *v1alpha1.ComponentSet, c *v1alpha1.Component, timeout time.Duration, now time.Time) error {
	if _, marked := c.Annotations[r.keys.leftBehind]; marked {
		return nil
	}
	patch := client.MergeFrom(c.DeepCopy())
	metav1.SetMetaDataAnnotation(&c.ObjectMeta, r.keys.leftBehind, now.UTC().Format(time.RFC3339))
	if err := r.client.Patch(ctx, c, patch); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("marking Component %s/%s left behind: %w", c.Namespace, c.Name, err)
	}
	r.recorder.Eventf(set, nil, "Warning", ReasonLeftBehind, "Delete", "%s", bound(fmt.Sprintf(
		"cluster %s has not answered for %s: its Component %s is left behind, being deleted, with %d objects on the cluster; it deletes them when the cluster answers again (kubectl get component -n %s %s)",
		memberKey(c, r.keys), timeout, c.Name, len(c.Status.Inventory), c.Namespace, c.Name), maxEventNote))
	return nil
}

// memberKey names the member of the set's Component c: its member
// annotation (a set with spec.inputs), else its cluster's, else its name.
func memberKey(c *v1alpha1.Component, k keys) string {
	if name := c.Annotations[k.member]; name != "" {
		return name
	}
	if name := c.Annotations[k.clusterName]; name != "" {
		return name
	}
	return c.Name
}

// pausedDepartures say where the Components of the clusters that left a
// paused set stand, and what the set would do with them.
func pausedDepartures(set *v1alpha1.ComponentSet, leaving []*v1alpha1.Component, k keys) []departure {
	out := make([]departure, 0, len(leaving))
	for _, c := range leaving {
		d := departure{Cluster: memberKey(c, k), Component: c, State: departLeaving}
		switch {
		case !c.DeletionTimestamp.IsZero():
			d.Message = deletingMessage(c, c.Spec.KubeConfig != nil && c.Spec.KubeConfig.Name == copyName(c.Name))
		case set.Spec.RemovalPolicy == v1alpha1.RemovalOrphan:
			d.Message = "Paused: would release its Component, and leave its objects on the cluster"
		default:
			d.Message = "Paused: would delete its Component, and its objects on the cluster with it"
		}
		out = append(out, d)
	}
	return out
}
