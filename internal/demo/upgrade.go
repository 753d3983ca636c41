package demo

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

const (
	// upgradedImage and upgradedColour are what the upgrade changes: the
	// Deployment of wave 0 and the ConfigMap of wave 1.
	upgradedImage  = "registry.example/gizmo-controller:1.1.0"
	upgradedColour = "purple"
)

// upgrade changes the Deployment of wave 0 and the ConfigMap of wave 1 in
// one change of the Component's values, and shows the Deployment
// controller rolling the new ReplicaSet out while wave 1 waits for it. It
// fails if the ConfigMap changed before the new ReplicaSet was available.
func (d *demo) upgrade(ctx context.Context, c *v1alpha1.Component) error {
	d.say("upgrading in one change: image 1.1.0 for the Deployment (wave 0) and colour %s for the ConfigMap (wave 1)", upgradedColour)
	var current v1alpha1.Component
	if err := d.client.Get(ctx, client.ObjectKeyFromObject(c), &current); err != nil {
		return fmt.Errorf("reading the Component: %w", err)
	}
	values := fmt.Sprintf(`{"replicas":%d,"image":%q,"settings":{"colour":%q,"size":"large"}}`, demoReplicas, upgradedImage, upgradedColour)
	current.Spec.Values = &apiextensionsv1.JSON{Raw: []byte(values)}
	if err := d.client.Update(ctx, &current); err != nil {
		return fmt.Errorf("upgrading the Component: %w", err)
	}
	r := &rollout{demo: d}
	deadline := time.Now().Add(stepTimeout)
	for time.Now().Before(deadline) {
		done, err := r.observe(ctx, current.Generation)
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("the upgrade did not finish within %s", stepTimeout)
}

// rollout follows one upgrade: the ReplicaSets of the Deployment, the
// ConfigMap of the next wave and the Component.
type rollout struct {
	demo *demo
	last string // the last line shown about the ReplicaSets
}

// observe reads the cluster once, shows what changed, and reports whether
// the Component is Ready at generation.
func (r *rollout) observe(ctx context.Context, generation int64) (bool, error) {
	d := r.demo
	var sets appsv1.ReplicaSetList
	if err := d.client.List(ctx, &sets, client.InNamespace(objectsNamespace), client.MatchingLabels{"app": "gizmo-controller"}); err != nil {
		return false, fmt.Errorf("listing the ReplicaSets: %w", err)
	}
	newAvailable := newReplicaSetAvailable(sets.Items)
	if line := describeReplicaSets(sets.Items); line != r.last {
		r.last = line
		d.progress.line("  rollout: " + line)
	}
	var settings corev1.ConfigMap
	if err := d.client.Get(ctx, client.ObjectKey{Namespace: objectsNamespace, Name: "gizmo-settings"}, &settings); err != nil {
		return false, fmt.Errorf("reading the ConfigMap gizmo-settings: %w", err)
	}
	if settings.Data["colour"] == upgradedColour && !newAvailable {
		return false, fmt.Errorf("the ConfigMap of wave 1 changed before the new ReplicaSet of wave 0 was available: %s", r.last)
	}
	var got v1alpha1.Component
	if err := d.client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "demo"}, &got); err != nil {
		return false, fmt.Errorf("reading the Component: %w", err)
	}
	d.progress.show(&got)
	if got.Status.ObservedGeneration != generation || got.Status.State != component.StateReady {
		return false, nil
	}
	d.progress.settle()
	if settings.Data["colour"] != upgradedColour {
		return false, fmt.Errorf("the Component is Ready but the ConfigMap gizmo-settings still has colour %q", settings.Data["colour"])
	}
	d.say("Component %s/%s: Ready with the upgrade", got.Namespace, got.Name)
	d.say("checked: wave 1 (the ConfigMap) changed only once the new ReplicaSet had all %d pods available", demoReplicas)
	return true, nil
}

// newReplicaSetAvailable tells whether the ReplicaSet with the upgraded
// image has every replica available.
func newReplicaSetAvailable(sets []appsv1.ReplicaSet) bool {
	for _, rs := range sets {
		if imageOf(rs) == upgradedImage {
			return rs.Spec.Replicas != nil && rs.Status.AvailableReplicas == *rs.Spec.Replicas && *rs.Spec.Replicas == demoReplicas
		}
	}
	return false
}

// describeReplicaSets says, for each ReplicaSet, its image tag and how many
// of its pods are available out of how many it wants.
func describeReplicaSets(sets []appsv1.ReplicaSet) string {
	sort.Slice(sets, func(i, j int) bool { return imageOf(sets[i]) < imageOf(sets[j]) })
	parts := make([]string, 0, len(sets))
	for _, rs := range sets {
		want := int32(0)
		if rs.Spec.Replicas != nil {
			want = *rs.Spec.Replicas
		}
		tag := imageOf(rs)[strings.LastIndex(imageOf(rs), ":")+1:]
		parts = append(parts, fmt.Sprintf("ReplicaSet %s (%s) %d/%d available", rs.Name, tag, rs.Status.AvailableReplicas, want))
	}
	return strings.Join(parts, ", ")
}

func imageOf(rs appsv1.ReplicaSet) string {
	if containers := rs.Spec.Template.Spec.Containers; len(containers) > 0 {
		return containers[0].Image
	}
	return ""
}
