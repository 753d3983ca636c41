package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// maxNamed bounds how many Components a deletion message names.
const maxNamed = 10

// delete deletes the set's Components in reverse cluster waves, the last
// wave first, each wave once the later ones are gone (each Component's own
// finalizer deletes its objects on its cluster); with removal policy Orphan
// it releases them instead. The finalizer goes once none is left.
func (r *Reconciler) delete(ctx context.Context, set *v1alpha1.ComponentSet) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(set, r.keys.finalizer) {
		return ctrl.Result{}, nil
	}
	before := set.Status.DeepCopy()
	owned, err := r.ownedComponents(ctx, set)
	if err != nil {
		return ctrl.Result{}, err
	}
	recheck, err := r.leaveUnreachable(ctx, set, owned, time.Now())
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(owned) == 0 {
		patch := client.MergeFromWithOptions(set.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.RemoveFinalizer(set, r.keys.finalizer)
		if err := r.client.Patch(ctx, set, patch); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("removing the finalizer of ComponentSet %s/%s: %w", set.Namespace, set.Name, err)
		}
		return ctrl.Result{}, nil
	}
	var errs []error
	if set.Spec.RemovalPolicy == v1alpha1.RemovalOrphan {
		for _, c := range owned {
			errs = append(errs, r.release(ctx, c))
		}
		return ctrl.Result{}, errors.Join(errs...)
	}
	wave, last := lastWave(owned, r.keys)
	for _, c := range last {
		if c.DeletionTimestamp.IsZero() {
			errs = append(errs, client.IgnoreNotFound(r.client.Delete(ctx, c, client.Preconditions{UID: &c.UID})))
		}
	}
	setConditions(&set.Status, set.Generation, ReasonDeleting, false, deletionMessage(wave, last, len(owned)))
	errs = append(errs, r.writeStatus(ctx, set, before))
	return ctrl.Result{RequeueAfter: recheck}, errors.Join(errs...)
}

// leaveUnreachable takes out of owned the Components being deleted whose
// cluster has not answered for longer than spec.unreachableTimeout since
// their deletion began: the set's deletion no longer waits for them. Each
// stays, being deleted, and deletes its cluster's objects when the cluster
// answers again; the first time, it is marked (leftBehind annotation) and
// an Event of the set names it. It returns when to look again for a
// Component that is unreachable but not yet past the timeout (0: none).
func (r *Reconciler) leaveUnreachable(ctx context.Context, set *v1alpha1.ComponentSet, owned map[string]*v1alpha1.Component, now time.Time) (time.Duration, error) {
	timeout := set.Spec.GetUnreachableTimeout()
	var recheck time.Duration
	for name, c := range owned {
		if c.DeletionTimestamp.IsZero() || !isUnreachable(c.Status.ReadyCondition()) {
			continue
		}
		if left := c.DeletionTimestamp.Add(timeout).Sub(now); left > 0 {
			if recheck == 0 || left < recheck {
				recheck = left
			}
			continue
		}
		delete(owned, name)
		if _, marked := c.Annotations[r.keys.leftBehind]; marked {
			continue
		}
		patch := client.MergeFrom(c.DeepCopy())
		metav1.SetMetaDataAnnotation(&c.ObjectMeta, r.keys.leftBehind, now.UTC().Format(time.RFC3339))
		if err := r.client.Patch(ctx, c, patch); client.IgnoreNotFound(err) != nil {
			return 0, fmt.Errorf("marking Component %s/%s left behind: %w", c.Namespace, c.Name, err)
		}
		cluster := c.Annotations[r.keys.clusterName]
		if cluster == "" {
			cluster = c.Name
		}
		r.recorder.Eventf(set, nil, "Warning", ReasonLeftBehind, "Delete", "%s", bound(fmt.Sprintf(
			"cluster %s has not answered for %s: its Component %s is left behind, being deleted, with %d objects on the cluster; it deletes them when the cluster answers again (kubectl get component -n %s %s)",
			cluster, timeout, c.Name, len(c.Status.Inventory), c.Namespace, c.Name), maxEventNote))
	}
	return recheck, nil
}

// lastWave returns the highest wave of the Components (by their wave
// annotation; one without it counts as the last) and its Components.
func lastWave(owned map[string]*v1alpha1.Component, k keys) (int, []*v1alpha1.Component) {
	waveOf := func(c *v1alpha1.Component) int {
		w, err := strconv.Atoi(c.Annotations[k.wave])
		if err != nil {
			return int(^uint(0) >> 1)
		}
		return w
	}
	top := 0
	for _, c := range owned {
		top = max(top, waveOf(c))
	}
	var last []*v1alpha1.Component
	for _, name := range sortedKeys(owned) {
		if c := owned[name]; waveOf(c) == top {
			last = append(last, c)
		}
	}
	return top, last
}

// deletionMessage names the Components being deleted and what holds them,
// bounded to maxNamed of them.
func deletionMessage(wave int, deleting []*v1alpha1.Component, left int) string {
	var parts []string
	for _, c := range deleting[:min(len(deleting), maxNamed)] {
		part := c.Name
		if ready := c.Status.ReadyCondition(); ready != nil && ready.Message != "" {
			part += " (" + bound(ready.Message, 200) + ")"
		}
		parts = append(parts, part)
	}
	if len(deleting) > maxNamed {
		parts = append(parts, fmt.Sprintf("… and %d more", len(deleting)-maxNamed))
	}
	slices.Sort(parts[:min(len(parts), maxNamed)])
	return fmt.Sprintf("deleting cluster wave %d: %d Components left; waiting for %s", wave, left, strings.Join(parts, ", "))
}
