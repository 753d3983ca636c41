package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// passRequest passes the set's reconcile request (its annotation
// <operator>/reconcile-requested-at, which a person, wavekit or a Receiver
// sets) on to the Components of its clusters: each gets the same value by a
// merge patch of that one annotation, and reconciles as that annotation asks
// of any Component (its chart source asked for new versions at once). The
// set records the value in status.lastHandledReconcileAt once every
// Component has it, so a request is passed on once; a failed patch is tried
// again at the next pass. A Component the set creates in this pass needs
// none: it renders anyway.
func (r *Reconciler) passRequest(ctx context.Context, set *v1alpha1.ComponentSet, members []*member) error {
	value := set.Annotations[r.keys.request]
	if value == "" || value == set.Status.LastHandledReconcileAt {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{r.keys.request: value}}})
	if err != nil {
		return fmt.Errorf("encoding the reconcile request of ComponentSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	var errs []error
	for _, m := range members {
		c := m.Component
		if c == nil || !c.DeletionTimestamp.IsZero() || c.Annotations[r.keys.request] == value {
			continue
		}
		if err := r.client.Patch(ctx, r.requestTarget(c), client.RawPatch(types.MergePatchType, patch)); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("passing the reconcile request on to Component %s/%s of cluster %s: %w", c.Namespace, c.Name, m.Cluster.Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	set.Status.LastHandledReconcileAt = value
	return nil
}
