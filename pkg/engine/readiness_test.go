package engine_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

var _ = Describe("readiness", func() {
	var (
		ctx context.Context
		h   *harness
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("readiness")
	})

	It("fails the run with the Job's message when a Job failed", func() {
		job := &batchv1.Job{
			TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "migrate"},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "m", Image: "busybox"}},
			}}},
		}
		res, err := h.apply(ctx, job)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())

		// Play the Job controller: the Job failed.
		var live batchv1.Job
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(job), &live)).To(Succeed())
		now := metav1.Now()
		live.Status = batchv1.JobStatus{StartTime: &now, Failed: 1, Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
		}}
		Expect(env.Client.Status().Update(ctx, &live)).To(Succeed())

		Eventually(func() error {
			_, err := h.apply(ctx, job)
			return err
		}).Should(MatchError(ContainSubstring("batch/Job " + ns + "/migrate failed: Failed: BackoffLimitExceeded: Job has reached the specified backoff limit")))
	})

	It("waits for the conditions a status hint names", func() {
		w := widget(ns, "hinted", "status-hint", "conditions=Synced;Healthy")
		res, err := h.apply(ctx, w)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())

		setConditions(ctx, w, map[string]string{"Synced": "True", "Healthy": "False"})
		Eventually(func() []engine.Waiting {
			res, err := h.apply(ctx, w)
			Expect(err).NotTo(HaveOccurred())
			return res.Waiting
		}).Should(ConsistOf(ContainSubstring("condition Healthy is False")))

		setConditions(ctx, w, map[string]string{"Synced": "True", "Healthy": "True"})
		h.applyUntilDone(ctx, w)
	})

	It("waits until status.observedGeneration catches up with has-observed-generation", func() {
		w := widget(ns, "observed", "status-hint", "has-observed-generation")
		_, err := h.apply(ctx, w)
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() []engine.Waiting {
			res, _ := h.apply(ctx, w)
			return res.Waiting
		}).Should(ConsistOf(ContainSubstring("status.observedGeneration is 0, generation is 1")))

		live := get(ctx, "test.wavekit.dev/v1", "Widget", ns, "observed")
		Expect(unstructured.SetNestedField(live.Object, int64(1), "status", "observedGeneration")).To(Succeed())
		Expect(env.Client.Status().Update(ctx, live)).To(Succeed())
		h.applyUntilDone(ctx, w)
	})
})

func setConditions(ctx context.Context, u *unstructured.Unstructured, conditions map[string]string) {
	live := get(ctx, u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName())
	var list []any
	for t, s := range conditions {
		list = append(list, map[string]any{"type": t, "status": s, "reason": "Test", "message": "set by the test", "lastTransitionTime": "2026-01-01T00:00:00Z"})
	}
	Expect(unstructured.SetNestedSlice(live.Object, list, "status", "conditions")).To(Succeed())
	Expect(env.Client.Status().Update(ctx, live)).To(Succeed())
}
