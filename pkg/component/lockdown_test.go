package component_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

var _ = Describe("the lockdown options", func() {
	ctx := context.Background()

	It("refuses a placement outside the component's namespace with NoCrossNamespaceRefs", func() {
		ns, elsewhere := newNamespace(ctx), newNamespace(ctx)
		startOperator(ctx, ns, component.ReconcilerOptions{NoCrossNamespaceRefs: true})
		c := newComponent(ns, "elsewhere", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		c.Spec.Namespace = elsewhere
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(And(
			HavePrefix("False/"),
			ContainSubstring("placement namespace "+elsewhere+" is not the component's namespace "+ns),
			ContainSubstring("--no-cross-namespace-refs")))
		Consistently(func() any { return getConfigMap(ctx, elsewhere, "a") }).WithTimeout(time.Second).Should(BeNil())
	})

	It("applies a component without a service account as the default one of its namespace", func() {
		ns := newNamespace(ctx)
		startOperator(ctx, ns, component.ReconcilerOptions{DefaultServiceAccount: "missing-rights"})
		c := newComponent(ns, "locked", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(And(
			HavePrefix("False/"),
			ContainSubstring(`User "system:serviceaccount:`+ns+`:missing-rights" cannot list resource "configmaps"`)))
		Expect(getConfigMap(ctx, ns, "a")).To(BeNil())
	})
})
