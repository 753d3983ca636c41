package fleet

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// ClusterPreview is what a set makes of one cluster, for wavekit diff
// componentset: the Component it writes there once its rollout reaches the
// cluster's wave, or the Component of a cluster that leaves the selection.
type ClusterPreview struct {
	// Cluster is the cluster's name.
	Cluster string
	// Wave is the cluster's wave (1-based); 0 for a cluster that leaves.
	Wave int
	// Component is the Component the set writes for the cluster: the
	// current template, values, labels and annotations over Current's
	// metadata and status. Nil for a cluster that leaves.
	Component *v1alpha1.Component
	// Current is the set's Component of the cluster now; nil for a cluster
	// that joins the selection.
	Current *v1alpha1.Component
	// Pulled: the cluster runs an agent (pull.go), which renders its
	// Component in the cluster; nothing here reaches it to preview.
	Pulled bool
}

// Leaves tells whether the cluster leaves the selection: its Component is
// deleted, or released under removalPolicy Orphan.
func (p ClusterPreview) Leaves() bool { return p.Component == nil }

// Preview tells, writing nothing, what set (the one in the cluster, or a
// changed copy with its UID) makes of each cluster: the clusters it selects
// in their waves, then those that leave, by name. It selects, orders and
// renders the Components as the controller of the operator named operator
// does, reading with c (cluster Secrets' metadata, Cluster API Clusters
// when the API server serves them, the set's Components).
func Preview(ctx context.Context, c client.Client, operator string, set *v1alpha1.ComponentSet) ([]ClusterPreview, error) {
	r := &Reconciler{client: c, live: c, keys: keysFor(operator)}
	var err error
	if r.capi, err = capiKind(c.RESTMapper()); err != nil {
		return nil, err
	}
	owned, err := r.ownedComponents(ctx, set)
	if err != nil {
		return nil, err
	}
	if err := r.previewPulled(ctx, set, owned); err != nil {
		return nil, err
	}
	list, err := r.readInputs(ctx, set)
	if err != nil {
		return nil, fmt.Errorf("ComponentSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	members, err := r.selectMembers(ctx, set, readersOf(c), list)
	if err != nil {
		return nil, fmt.Errorf("ComponentSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	p, err := makePlan(set, members, owned, r.keys)
	if err != nil {
		return nil, fmt.Errorf("ComponentSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	out := make([]ClusterPreview, 0, len(p.Members)+len(p.Leaving))
	for _, m := range p.Members {
		out = append(out, ClusterPreview{Cluster: m.Cluster.Name, Wave: m.Wave, Component: r.componentOf(set, m), Current: m.Component,
			Pulled: m.Cluster.Labels[r.keys.pull] == "true"})
	}
	for _, leaving := range p.Leaving {
		out = append(out, ClusterPreview{Cluster: memberKey(leaving, r.keys), Current: leaving})
	}
	return out, nil
}

// previewPulled adds to owned the views of the set's ComponentWorks, when
// the API server serves them and the reader may list them; a reader who
// may not sees pulled clusters as joining.
func (r *Reconciler) previewPulled(ctx context.Context, set *v1alpha1.ComponentSet, owned map[string]*v1alpha1.Component) error {
	_, err := r.client.RESTMapper().RESTMapping(v1alpha1.GroupVersion.WithKind("ComponentWork").GroupKind(), v1alpha1.GroupVersion.Version)
	if meta.IsNoMatchError(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("looking up the ComponentWork kind: %w", err)
	}
	r.pulling = true
	pulled, err := r.pulledComponents(ctx, set)
	if apierrors.IsForbidden(err) {
		return nil
	}
	for name, c := range pulled {
		owned[name] = c
	}
	return err
}
