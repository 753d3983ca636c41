package component_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("remediation", func() {
	var (
		ctx context.Context
		ns  string
	)
	BeforeEach(func() {
		ctx = context.Background()
		ns = newNamespace(ctx)
	})

	// settings renders ConfigMap settings with state, and ConfigMap extra
	// when extra is set.
	settings := func(state string, extra bool) map[string]any {
		cms := map[string]any{"settings": map[string]any{"data": map[string]any{"state": state}}}
		if extra {
			cms["extra"] = map[string]any{}
		}
		return map[string]any{"configMaps": cms}
	}

	It("rolls a render whose object fails its health check back at once, keeps the rollback in sync, and a pass that finds it so sends no request", func() {
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "flaky", settings("ok", false))
		c.Spec.HealthChecks = []manifests.HealthCheck{{APIVersion: "v1", Kind: "ConfigMap", Failed: "has(self.data.state) && self.data.state == 'broken'"}}
		c.Spec.Remediation = &component.Remediation{Strategy: component.RemediateRollback}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("True/Ready: every object is applied and ready"))

		got := getComponent(ctx, c)
		setValues(got, settings("broken", true))
		Expect(env.Client.Update(ctx, got)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix(
			"False/RolledBack: rolled back to the render of generation 1 after 1 try of generation 2 failed: ConfigMap " + ns + "/settings failed: "))
		Expect(getConfigMap(ctx, ns, "settings").Data).To(Equal(map[string]string{"state": "ok"}))
		eventually(func() bool { return getConfigMap(ctx, ns, "extra") == nil }).Should(BeTrue(), "only the failed render had it: pruned")

		By("correcting drift of the rolled-back render, by the event")
		drifted := getConfigMap(ctx, ns, "settings")
		drifted.Data["state"] = "edited"
		Expect(env.Client.Update(ctx, drifted)).To(Succeed())
		eventually(func() map[string]string { return getConfigMap(ctx, ns, "settings").Data }).Should(Equal(map[string]string{"state": "ok"}))

		By("sending no request once the rollback is in place: the kept render is read once, the rest from caches")
		eventually(func() (map[string]int, error) {
			h.counter.Reset()
			_, err := h.reconciler.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c)})
			return h.counter.Snapshot(), err
		}).Should(BeEmpty())
		Expect(outcomesOf(getComponent(ctx, c).Status.History)).To(Equal([]string{"1 Ready", "2 Failed", "2 RolledBack"}))
	})

	It("does not count an error in rendering as a failed try: nothing is rolled back", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "unrendered", settings("ok", false))
		c.Spec.Remediation = &component.Remediation{Strategy: component.RemediateRollback}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		got := getComponent(ctx, c)
		setValues(got, map[string]any{"fail": "values.broken is not a map"})
		Expect(env.Client.Update(ctx, got)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(ContainSubstring("values.broken is not a map"))
		Consistently(func() string { return readyCondition(ctx, c) }).WithTimeout(2 * time.Second).Should(ContainSubstring("values.broken is not a map"))
		Expect(outcomesOf(getComponent(ctx, c).Status.History)).To(Equal([]string{"1 Ready"}))
	})
})

// outcomesOf lists a history as "GENERATION RESULT".
func outcomesOf(history []component.HistoryEntry) []string {
	var out []string
	for _, h := range history {
		out = append(out, fmt.Sprintf("%d %s", h.Generation, h.Result))
	}
	return out
}
