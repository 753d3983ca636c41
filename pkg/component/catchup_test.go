package component_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

var _ = Describe("the catch-up after a start", func() {
	// The soak saw a Component read Ready while its object, deleted when
	// no replica led, was not there: only the new leader's first pass
	// could tell. CaughtUp says when every status is that fresh.
	It("ends only after every component found at the start was looked at, so a Ready status is fresh again", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		Eventually(h.reconciler.CaughtUp()).WithTimeout(30 * time.Second).Should(BeClosed())
		first := newComponent(ns, "first", map[string]any{"configMaps": map[string]any{"one": map[string]any{}}})
		second := newComponent(ns, "second", map[string]any{"configMaps": map[string]any{"two": map[string]any{}}})
		Expect(env.Client.Create(ctx, first)).To(Succeed())
		Expect(env.Client.Create(ctx, second)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, first) }).Should(HavePrefix("True/Ready"))
		eventually(func() string { return readyCondition(ctx, second) }).Should(HavePrefix("True/Ready"))

		By("an object deleted while no operator runs: the status still says Ready")
		h.stop()
		Expect(env.Client.Delete(ctx, getConfigMap(ctx, ns, "two"))).To(Succeed())
		Expect(readyCondition(ctx, second)).To(HavePrefix("True/Ready"))

		By("the restarted operator's catch-up ends after the pass that put it back")
		h = startOperator(ctx, ns, component.ReconcilerOptions{})
		Eventually(h.reconciler.CaughtUp()).WithTimeout(60 * time.Second).Should(BeClosed())
		Expect(getConfigMap(ctx, ns, "two")).NotTo(BeNil(), "caught up before the pass of component second")
	})
})
