package engine

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// computeReadiness is a pure function of the live object; these specs give it
// the statuses that the real controllers write (test/e2e sees them written).
var _ = Describe("computeReadiness", func() {
	job := func(conditions ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "batch/v1", "kind": "Job",
			"metadata": map[string]any{"name": "migrate", "namespace": "n", "generation": int64(1)},
			"spec":     map[string]any{"backoffLimit": int64(0)},
			"status": map[string]any{"startTime": "2026-11-23T12:00:00Z", "active": int64(1),
				"conditions": conditions},
		}}
	}
	condition := func(kind, reason, message string) map[string]any {
		return map[string]any{"type": kind, "status": "True", "reason": reason, "message": message}
	}

	It("keeps a started Job in progress until it is complete, which kstatus calls Current", func() {
		running := job()
		Expect(status.Compute(running)).To(HaveField("Status", status.CurrentStatus), "kstatus's view, which wavekit corrects")
		Expect(computeReadiness(running, manifests.StatusHint{})).To(Equal(readiness{Status: status.InProgressStatus,
			Message: "Job in progress. success:0, active: 1, failed: 0"}))

		complete := job(condition("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods"),
			condition("Complete", "CompletionsReached", "Reached expected number of succeeded pods"))
		Expect(computeReadiness(complete, manifests.StatusHint{}).ready()).To(BeTrue())
	})

	It("gives a failed Job's reason and message", func() {
		failed := job(condition("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
			condition("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit"))
		Expect(computeReadiness(failed, manifests.StatusHint{})).To(Equal(readiness{Status: status.FailedStatus,
			Message: "BackoffLimitExceeded: Job has reached the specified backoff limit"}))
	})

	It("gives the Deployment controller's words, which name the ReplicaSet, when the progress deadline passed", func() {
		deployment := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "n", "generation": int64(1)},
			"spec":     map[string]any{"replicas": int64(3), "progressDeadlineSeconds": int64(10)},
			"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(3), "updatedReplicas": int64(3),
				"unavailableReplicas": int64(3), "conditions": []any{
					map[string]any{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable", "message": "Deployment does not have minimum availability."},
					map[string]any{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded", "message": `ReplicaSet "web-6cdcb54b5c" has timed out progressing.`},
				}},
		}}
		Expect(computeReadiness(deployment, manifests.StatusHint{})).To(Equal(readiness{Status: status.FailedStatus,
			Message: `ProgressDeadlineExceeded: ReplicaSet "web-6cdcb54b5c" has timed out progressing.`}))
	})

	It("keeps the message of an object that says it is Stalled itself", func() {
		stalled := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "test.wavekit.dev/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "n", "generation": int64(1)},
			"status": map[string]any{"observedGeneration": int64(1), "conditions": []any{
				condition("Stalled", "BadSpec", "spec.size must be positive"),
			}},
		}}
		Expect(computeReadiness(stalled, manifests.StatusHint{})).To(Equal(readiness{Status: status.FailedStatus,
			Message: "spec.size must be positive"}))
	})
})
