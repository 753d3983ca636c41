package component_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// kstatusOf computes the component's kstatus as kubectl, Flux and Argo CD do.
func kstatusOf(ctx context.Context, c *v1alpha1.Component) status.Status {
	GinkgoHelper()
	got := &v1alpha1.Component{}
	Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(got)
	Expect(err).NotTo(HaveOccurred())
	res, err := status.Compute(&unstructured.Unstructured{Object: content})
	Expect(err).NotTo(HaveOccurred())
	return res.Status
}

var _ = Describe("the component's conditions", func() {
	It("read as InProgress while waiting, Current when Ready and Failed on an error that needs a change", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "kstatus", map[string]any{"widgets": []any{"w1"}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("False/Processing: waiting for wave 0"))
		Expect(kstatusOf(ctx, c)).To(Equal(status.InProgressStatus))

		setWidgetReady(ctx, ns, "w1") // plays the Widget's controller
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		Expect(kstatusOf(ctx, c)).To(Equal(status.CurrentStatus))

		got := getComponent(ctx, c)
		setValues(got, map[string]any{"widgets": []any{"w1"}, "fail": "missing value .image"})
		Expect(env.Client.Update(ctx, got)).To(Succeed())
		eventually(func() status.Status { return kstatusOf(ctx, c) }).Should(Equal(status.FailedStatus))
		Expect(readyCondition(ctx, c)).To(Equal("False/Error: rendering: template values.yaml:3: missing value .image"))
	})
	It("does not count a nested Component that no operator has reconciled yet as ready", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		elsewhere := newNamespace(ctx)
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "outer", map[string]any{"nestedIn": elsewhere})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal(
			"False/Processing: waiting for wave 0: wavekit.dev/Component " + elsewhere + "/inner: Creating, InProgress"))
	})
})
