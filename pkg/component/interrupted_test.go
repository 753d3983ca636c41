package component_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// A pass that the operator's stop cuts short has not failed. Before, the
// "context canceled" its steps returned became the component's Error for
// every pass that ran as a replica stopped (a rollout of the operator, a
// lost lease), until the next leader's pass, which then wrote the status
// again (a spec of renderinputs_test.go saw it once, as its operator
// restarted).
var _ = Describe("a pass cut short by the operator's stop", func() {
	It("leaves the Ready condition as it was, not an Error of its own cancellation", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		held := &heldRender{entered: make(chan struct{}, 1)}
		h := startOperatorWith(ctx, ns, component.ReconcilerOptions{}, func(values *valuesGenerator) manifests.Generator {
			held.Generator = values
			return held
		})
		c := newComponent(ns, "cut", map[string]any{"configMaps": map[string]any{"one": map[string]any{}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		ready := readyCondition(ctx, c)

		update(ctx, c, func(c *v1alpha1.Component) {
			setValues(c, map[string]any{"hold": true, "configMaps": map[string]any{"one": map[string]any{}}})
		})
		Eventually(held.entered).WithTimeout(30*time.Second).Should(Receive(), "the pass of the change renders")
		h.stop()

		Expect(readyCondition(ctx, c)).To(Equal(ready), "the status says what it said before the stop")
		Expect(getComponent(ctx, c).Status.ObservedGeneration).To(BeEquivalentTo(1), "the change is not reported as handled")
	})
})

// heldRender renders as its Generator does, except that a render whose
// values hold "hold" waits until its context ends and returns why, as a
// chart fetch cut off by the stop would.
type heldRender struct {
	manifests.Generator
	entered chan struct{}
}

func (g *heldRender) Generate(ctx context.Context, namespace, name string, p manifests.Parameters) ([]client.Object, error) {
	if _, hold := p.ToUnstructured()["hold"]; !hold {
		return g.Generator.Generate(ctx, namespace, name, p)
	}
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, ctx.Err()
}
