package readiness

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestReadinessPhase: a Deployment rolling out keeps one status
// ("InProgress") however far it got, so the inventory does not change at
// every replica; how far it got is its progress, reported apart. A failed
// object's status says why, and so does an APIService that is not
// Available: the aggregator's reason (the local cluster's egress gate's
// refusal) is a verdict, not progress.
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
	apiService := func(conditions ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]any{"name": "v1beta1.external.metrics.k8s.io"},
			"status":   map[string]any{"conditions": conditions},
		}}
	}
	refused := "failing or missing response from https://198.18.117.139:443/apis/external.metrics.k8s.io/v1beta1: " +
		"proxy error from /tmp/egress.sock while dialing 198.18.117.139:443, code 502: " +
		"502 no container serves Service keda/keda-operator-metrics-apiserver in the local cluster"
	unavailable := map[string]any{"type": "Available", "status": "False", "reason": "FailedDiscoveryCheck", "message": refused}
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
		{"an APIService the aggregator cannot reach", manifests.PhaseCreating, apiService(unavailable), manifests.PhaseCreating,
			"InProgress: condition Available is False: " + refused, ""},
		{"an APIService that stopped being Available", manifests.PhaseReady, apiService(unavailable), manifests.PhaseUpdating,
			"InProgress: condition Available is False: " + refused, ""},
		{"an APIService the aggregator has not checked yet", manifests.PhaseCreating, apiService(), manifests.PhaseCreating,
			"InProgress: condition Available not set yet", ""},
		{"an APIService that is Available", manifests.PhaseCreating, apiService(map[string]any{"type": "Available", "status": "True"}),
			manifests.PhaseReady, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			phase, status, progress := Phase(tt.phase, tt.live, nil, manifests.StatusHint{})
			if phase != tt.wantPhase || status != tt.wantStatus || progress != tt.wantProgress {
				t.Errorf("readinessPhase = %s, %q, %q; want %s, %q, %q", phase, status, progress, tt.wantPhase, tt.wantStatus, tt.wantProgress)
			}
		})
	}
}
