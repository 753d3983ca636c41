package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// maxNamed bounds how many Components a deletion message names.
const maxNamed = 10

// delete deletes the set's Components in reverse cluster waves, the last
// wave first, each wave once the later ones are gone (each Component's own
// finalizer deletes its objects on its cluster, with the set's copy of its
// kubeconfig when its Secret is gone: departure.go); with removal policy
// Orphan it releases them instead. A Component whose cluster has not
// answered for spec.unreachableTimeout no longer holds its wave: it is left
// behind, or released when only the set's copy of its kubeconfig is left.
// The finalizer goes once none is left.
func (r *Reconciler) delete(ctx context.Context, set *v1alpha1.ComponentSet) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(set, r.keys.finalizer) {
		return ctrl.Result{}, nil
	}
	before := set.Status.DeepCopy()
	owned, err := r.ownedComponents(ctx, set)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := time.Now()
	recheck, err := r.settleDeleting(ctx, set, owned, now)
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
			_, _, err := r.depart(ctx, set, c, now)
			errs = append(errs, err)
		}
	}
	setConditions(&set.Status, set.Generation, ReasonDeleting, false, deletionMessage(wave, last, len(owned)))
	errs = append(errs, r.writeStatus(ctx, set, before))
	return ctrl.Result{RequeueAfter: recheck}, errors.Join(errs...)
}

// settleDeleting takes each of owned that is being deleted a step further
// (depart), and takes out of owned those that no longer hold their wave:
// left behind or released. It returns when to look again for one whose
// cluster does not answer but is not yet past the timeout (0: none).
func (r *Reconciler) settleDeleting(ctx context.Context, set *v1alpha1.ComponentSet, owned map[string]*v1alpha1.Component, now time.Time) (time.Duration, error) {
	if set.Spec.RemovalPolicy == v1alpha1.RemovalOrphan {
		return 0, nil
	}
	var recheck time.Duration
	for _, name := range sortedKeys(owned) {
		c := owned[name]
		if c.DeletionTimestamp.IsZero() {
			continue
		}
		d, again, err := r.depart(ctx, set, c, now)
		if err != nil {
			return 0, err
		}
		recheck = soonest(recheck, again)
		if d.State != departLeaving {
			delete(owned, name)
		}
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
