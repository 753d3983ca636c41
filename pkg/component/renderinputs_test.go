package component_test

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("when a component renders", func() {
	var (
		ctx context.Context
		ns  string
	)

	BeforeEach(func() {
		ctx = context.Background()
		ns = newNamespace(ctx)
	})

	It("renders only when its inputs change: a random value stays across requeues, a drift repair and a restart", func() {
		passes := &passCounter{}
		h := startOperator(ctx, ns, component.ReconcilerOptions{RequeueInterval: time.Second}, passes.count)
		c := newComponent(ns, "random", map[string]any{"random": "password"})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		first := getConfigMap(ctx, ns, "password")
		renders, history := h.generator.renders(), len(getComponent(ctx, c).Status.History)
		kept := getSecret(ctx, ns, "random.component.current-render")
		Expect(kept).NotTo(BeNil(), "the current render is kept in a Secret")
		Expect(kept.Type).To(Equal(component.RenderSecretType))

		By("five requeues write nothing and render nothing")
		h.counter.Reset()
		seen := passes.get()
		eventually(passes.get).Should(BeNumerically(">=", seen+5))
		Expect(h.generator.renders()).To(Equal(renders), "a requeue rendered")
		Expect(h.counter.Writes()).To(BeZero(), "a requeue wrote: %s", h.counter)
		Expect(getConfigMap(ctx, ns, "password").ResourceVersion).To(Equal(first.ResourceVersion))
		Expect(getComponent(ctx, c).Status.History).To(HaveLen(history), "the history grew without a change")

		By("a hand edit is put back to the value last applied, not a new one")
		edited := getConfigMap(ctx, ns, "password")
		edited.Data["value"] = "edited by hand"
		Expect(env.Client.Update(ctx, edited)).To(Succeed())
		eventually(func() string { return getConfigMap(ctx, ns, "password").Data["value"] }).Should(Equal(first.Data["value"]))
		Expect(h.generator.renders()).To(Equal(renders), "the drift repair rendered")

		By("a restarted operator reads the render back from its Secret and writes nothing")
		h.stop()
		passes = &passCounter{}
		h = startOperator(ctx, ns, component.ReconcilerOptions{RequeueInterval: time.Second}, passes.count)
		eventually(passes.get).Should(BeNumerically(">=", 3))
		Expect(h.generator.renders()).To(BeZero(), "the restarted operator rendered")
		// Not even an Event: the status says Ready already, so it was said.
		Expect(h.counter.Writes()).To(BeZero(), "the restarted operator wrote: %s", h.counter)
		Expect(h.counter.Count("get", "secrets")).To(Equal(2), "the key and the kept render are read once each: %s", h.counter)
		Expect(getConfigMap(ctx, ns, "password").Data["value"]).To(Equal(first.Data["value"]))
		Expect(getComponent(ctx, c).Status.History).To(HaveLen(history))

		By("a change of the spec renders once, and its new value is applied once")
		update(ctx, c, func(c *v1alpha1.Component) {
			setValues(c, map[string]any{"random": "password", "configMaps": map[string]any{"added": map[string]any{}}})
		})
		eventually(func() *corev1.ConfigMap { return getConfigMap(ctx, ns, "added") }).ShouldNot(BeNil())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		seen = passes.get()
		eventually(passes.get).Should(BeNumerically(">=", seen+3))
		Expect(h.generator.renders()).To(Equal(1), "one render for one change")
		Expect(getConfigMap(ctx, ns, "password").Data["value"]).NotTo(Equal(first.Data["value"]))
		Expect(getComponent(ctx, c).Status.History).To(HaveLen(history+1), "one entry for one change")
	})

	It("renders a generator that declares its inputs only when they change", func() {
		inputs := &declaredInputs{value: "one"}
		passes := &passCounter{}
		var generator *valuesGenerator
		h := startOperatorWith(ctx, ns, component.ReconcilerOptions{RequeueInterval: time.Second}, func(values *valuesGenerator) manifests.Generator {
			generator = values
			return inputs.declare(values)
		}, passes.count)
		c := newComponent(ns, "declared", map[string]any{"random": "token"})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		first := getConfigMap(ctx, ns, "token").Data["value"]
		Expect(generator.renders()).To(Equal(1))
		Expect(inputs.calls.Load()).To(BeNumerically(">=", 1), "RenderInputs was not asked")

		seen := passes.get()
		eventually(passes.get).Should(BeNumerically(">=", seen+3))
		Expect(generator.renders()).To(Equal(1), "unchanged inputs rendered")

		inputs.set("two")
		eventually(func() string { return getConfigMap(ctx, ns, "token").Data["value"] }).ShouldNot(Equal(first))
		seen = passes.get()
		eventually(passes.get).Should(BeNumerically(">=", seen+3))
		Expect(generator.renders()).To(Equal(2), "one render for one change of the declared inputs")
		Expect(h.counter.Count("update", "secrets")+h.counter.Count("create", "secrets")).To(Equal(2), "each render is kept once: %s", h.counter)
	})
})

// passCounter counts the Reconciles of an operator that get past the read.
type passCounter struct{ n atomic.Int64 }

func (p *passCounter) get() int64 { return p.n.Load() }

func (p *passCounter) count(r *component.Reconciler[*v1alpha1.Component]) {
	r.WithPostReadHook(func(context.Context, client.Client, *v1alpha1.Component) error {
		p.n.Add(1)
		return nil
	})
}

// declaredInputs is a generator's declared input that a test changes, and
// how often the reconciler asked for it.
type declaredInputs struct {
	mu    sync.Mutex
	value string
	calls atomic.Int64
}

func (d *declaredInputs) set(value string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.value = value
}

// declare returns gen, declaring d as its inputs.
func (d *declaredInputs) declare(gen manifests.Generator) manifests.Generator {
	return inputsGenerator{Generator: gen, inputs: d}
}

type inputsGenerator struct {
	manifests.Generator
	inputs *declaredInputs
}

func (g inputsGenerator) RenderInputs(context.Context, string, string, manifests.Parameters) (string, error) {
	g.inputs.calls.Add(1)
	g.inputs.mu.Lock()
	defer g.inputs.mu.Unlock()
	return g.inputs.value, nil
}

func getSecret(ctx context.Context, ns, name string) *corev1.Secret {
	GinkgoHelper()
	secret := &corev1.Secret{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, secret); err != nil {
		Expect(client.IgnoreNotFound(err)).NotTo(HaveOccurred())
		return nil
	}
	return secret
}
