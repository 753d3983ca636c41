package engine_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
