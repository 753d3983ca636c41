package engine

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestReadinessPhase: a Deployment rolling out keeps one status
// ("InProgress") however far it got, so the inventory does not change at
// every replica; how far it got is its progress, reported apart. A failed
// object's status says why.
func TestReadinessPhase(t *testing.T) {
	deployment := func(updated, available int64, conditions ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "shop", "generation": int64(2)},
			"spec":     map[string]any{"replicas": int64(3)},
			"status": map[string]any{"observedGeneration": int64(2), "replicas": int64(3), "updatedReplicas": updated,
				"readyReplicas": available, "availableReplicas": available, "conditions": conditions},
		}}
	}
	progressing := map[string]any{"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"}
	deadline := map[string]any{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded", "message": "too slow"}
	for _, tt := range []struct {
		name                     string
		phase                    manifests.Phase
		live                     *unstructured.Unstructured
		wantPhase                manifests.Phase
		wantStatus, wantProgress string
	}{
		{"one replica updated", manifests.PhaseReady, deployment(1, 3, progressing), manifests.PhaseUpdating, "InProgress", "Updated: 1/3"},
		{"two replicas updated", manifests.PhaseUpdating, deployment(2, 3, progressing), manifests.PhaseUpdating, "InProgress", "Updated: 2/3"},
		{"rolled out", manifests.PhaseUpdating, deployment(3, 3, progressing, map[string]any{"type": "Available", "status": "True"}), manifests.PhaseReady, "", ""},
		{"past its deadline", manifests.PhaseUpdating, deployment(1, 3, deadline), manifests.PhaseError, "Failed: ProgressDeadlineExceeded: too slow", ""},
		{"being recreated", manifests.PhaseUpdating, nil, manifests.PhaseUpdating, "waiting for the old object to be deleted", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			phase, status, progress := readinessPhase(tt.phase, tt.live, nil, manifests.StatusHint{})
			if phase != tt.wantPhase || status != tt.wantStatus || progress != tt.wantProgress {
				t.Errorf("readinessPhase = %s, %q, %q; want %s, %q, %q", phase, status, progress, tt.wantPhase, tt.wantStatus, tt.wantProgress)
			}
		})
	}
}
