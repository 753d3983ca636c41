package component_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// reconcileErrors sums controller-runtime's count of reconciles that
// returned an error (each logged with a stack trace).
func reconcileErrors() float64 {
	GinkgoHelper()
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	total := 0.0
	for _, family := range families {
		if family.GetName() != "controller_runtime_reconcile_errors_total" {
			continue
		}
		for _, m := range family.GetMetric() {
			total += m.GetCounter().GetValue()
		}
	}
	return total
}

var _ = Describe("a clean deletion", func() {
	It("ends without a reconcile error", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		startOperator(ctx, ns, component.ReconcilerOptions{})
		var components []*v1alpha1.Component
		for i := range 5 {
			c := newComponent(ns, fmt.Sprintf("clean-%d", i), map[string]any{"configMaps": map[string]any{fmt.Sprintf("cm-%d", i): map[string]any{}}})
			Expect(env.Client.Create(ctx, c)).To(Succeed())
			components = append(components, c)
		}
		for _, c := range components {
			eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		}
		before := reconcileErrors()
		for _, c := range components {
			Expect(env.Client.Delete(ctx, c)).To(Succeed())
		}
		for _, c := range components {
			eventually(func() *v1alpha1.Component { return getComponent(ctx, c) }).Should(BeNil())
		}
		Consistently(reconcileErrors).WithTimeout(2e9).Should(Equal(before))
	})
})
