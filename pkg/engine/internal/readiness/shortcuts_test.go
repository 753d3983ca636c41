package readiness

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// workload is an apps/v1 object of kind at generation 2 with spec and
// status.
func workload(kind string, spec, status map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": kind,
		"metadata": map[string]any{"name": "vault", "namespace": "shop", "generation": int64(2)},
		"spec":     spec, "status": status,
	}}
}

// TestBeyondShortcuts: kstatus calls a StatefulSet with OnDelete Current at
// once, a DaemonSet with OnDelete after an upgrade and a paused Deployment
// never; wavekit waits for the pods that exist and tells who the others
// wait for.
func TestBeyondShortcuts(t *testing.T) {
	onDelete := map[string]any{"type": "OnDelete"}
	sts := func(made, updated, ready int64) *unstructured.Unstructured {
		return workload("StatefulSet", map[string]any{"replicas": int64(2), "updateStrategy": onDelete},
			map[string]any{"observedGeneration": int64(2), "replicas": made, "updatedReplicas": updated, "readyReplicas": ready})
	}
	ds := func(updated, ready int64) *unstructured.Unstructured {
		return workload("DaemonSet", map[string]any{"updateStrategy": onDelete},
			map[string]any{"observedGeneration": int64(2), "desiredNumberScheduled": int64(3), "currentNumberScheduled": int64(3),
				"updatedNumberScheduled": updated, "numberReady": ready, "numberAvailable": ready})
	}
	deployment := func(made, updated, ready int64) *unstructured.Unstructured {
		return workload("Deployment", map[string]any{"replicas": int64(2), "paused": true},
			map[string]any{"observedGeneration": int64(2), "replicas": made, "updatedReplicas": updated,
				"readyReplicas": ready, "availableReplicas": ready})
	}
	unseen := sts(2, 2, 2)
	unseen.Object["status"].(map[string]any)["observedGeneration"] = int64(1)
	for _, tt := range []struct {
		name, wantStatus, wantMessage string
		live                          *unstructured.Unstructured
	}{
		{"StatefulSet not seen yet", "InProgress", "StatefulSet generation is 2, but latest observed generation is 1", unseen},
		{"StatefulSet making pods", "InProgress", "Replicas: 1/2", sts(1, 1, 0)},
		{"StatefulSet pods not ready", "InProgress", "Ready: 1/2", sts(2, 2, 1)},
		{"StatefulSet ready", "Current", "StatefulSet is ready. Replicas: 2", sts(2, 2, 2)},
		{"StatefulSet scaled down", "InProgress", "Pending termination: 1", sts(3, 3, 3)},
		{"StatefulSet upgraded", "Current", "2 of 2 pods wait for a delete to be updated (updateStrategy OnDelete); ready: 2/2", sts(2, 0, 2)},
		{"DaemonSet upgraded", "Current", "2 of 3 pods wait for a delete to be updated (updateStrategy OnDelete)", ds(1, 3)},
		{"DaemonSet upgraded, pods not ready", "InProgress", "Available: 2/3", ds(1, 2)},
		{"DaemonSet ready", "Current", "All replicas scheduled as expected. Replicas: 3", ds(3, 3)},
		{"Deployment paused before its first rollout", "Current", "paused: its rollout waits for spec.paused to be false; updated: 0/2, ready: 0/0", deployment(0, 0, 0)},
		{"Deployment paused after an upgrade", "Current", "paused: its rollout waits for spec.paused to be false; updated: 0/2, ready: 2/2", deployment(2, 0, 2)},
		{"Deployment paused, pods not ready", "InProgress", "paused; Ready: 1/2", deployment(2, 2, 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Compute(tt.live, manifests.StatusHint{})
			if string(got.Status) != tt.wantStatus || got.Message != tt.wantMessage {
				t.Errorf("computeReadiness = %s %q; want %s %q", got.Status, got.Message, tt.wantStatus, tt.wantMessage)
			}
		})
	}
}
