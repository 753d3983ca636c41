package component_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/fakegithub"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/notify"
	"github.com/wavekit-dev/wavekit/pkg/notify/notifiers"
)

// sink is a Notifier that keeps what it is told.
type sink struct {
	mu     sync.Mutex
	events []notify.Event
}

func (s *sink) Send(e notify.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
}

// told lists "Kind Reason: message" of what the sink was told about the
// component name.
func (s *sink) told(name string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.events {
		if e.Object.Name == name {
			out = append(out, fmt.Sprintf("%s %s: %s", e.Kind, e.Reason, e.Message))
		}
	}
	return out
}

// last is the last event about the component name.
func (s *sink) last(name string) notify.Event {
	GinkgoHelper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.events) - 1; i >= 0; i-- {
		if s.events[i].Object.Name == name {
			return s.events[i]
		}
	}
	Fail("nothing was told about " + name)
	return notify.Event{}
}

var _ = Describe("alerts", func() {
	var (
		ctx context.Context
		ns  string
	)
	BeforeEach(func() {
		ctx = context.Background()
		ns = newNamespace(ctx)
	})

	It("tells what the status comes to say, once per change, with the trace ID of the reconcile that wrote it", func() {
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		DeferCleanup(tp.Shutdown)
		s := &sink{}
		startOperator(ctx, ns, component.ReconcilerOptions{Notifier: s, TracerProvider: tp})
		c := newComponent(ns, "told", configMapValues(2))
		c.Labels = map[string]string{"team": "shop"}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() []string { return s.told("told") }).Should(Equal([]string{"Ready Ready: every object is applied and ready"}))
		e := s.last("told")
		got := getComponent(ctx, c)
		Expect(e.Object).To(Equal(notify.Object{APIVersion: "wavekit.dev/v1alpha1", Kind: "Component", Namespace: ns, Name: "told", UID: string(got.UID)}))
		Expect(e.Generation).To(Equal(int64(1)))
		Expect(e.TraceID).To(Equal(got.Status.LastTraceID), "the trace of the reconcile that wrote Ready")
		Expect(e.TraceID).To(HaveLen(32))
		Expect(e.Operator).To(Equal(operator))
		Expect(e.Labels).To(Equal(map[string]string{"team": "shop"}))

		update(ctx, c, func(c *v1alpha1.Component) { setValues(c, map[string]any{"fail": "broken"}) })
		stalled := "Stalled Error: rendering: template values.yaml:3: broken"
		eventually(func() []string { return s.told("told") }).Should(ContainElement(stalled))
		Expect(s.last("told").Generation).To(Equal(int64(2)))
		// Requests for a pass make passes that fail the same way.
		for i := range 3 {
			update(ctx, c, func(c *v1alpha1.Component) {
				c.Annotations = map[string]string{operator + "/reconcile-requested-at": fmt.Sprint(i)}
			})
		}
		eventually(func() string { return getComponent(ctx, c).Status.LastHandledReconcileAt }).Should(Equal("2"))
		Expect(s.told("told")).To(HaveLen(2), "a pass that fails the same way tells nothing")

		update(ctx, c, func(c *v1alpha1.Component) { setValues(c, configMapValues(2)) })
		eventually(func() []string { return s.told("told") }).Should(Equal([]string{
			"Ready Ready: every object is applied and ready", stalled, "Ready Ready: every object is applied and ready",
		}))

		// An upgrade of objects that are ready as soon as they are written
		// is Ready in one pass, Ready never False: Ready at a new generation
		// is news too.
		readySince := getComponent(ctx, c).Status.ReadyCondition().LastTransitionTime
		update(ctx, c, func(c *v1alpha1.Component) {
			setValues(c, map[string]any{"configMaps": map[string]any{"cm-0000": map[string]any{"data": map[string]any{"v": "2"}}, "cm-0001": map[string]any{}}})
		})
		eventually(func() []string { return s.told("told") }).Should(HaveLen(4))
		got = getComponent(ctx, c)
		Expect(s.last("told")).To(And(HaveField("Kind", notify.KindReady), HaveField("Generation", got.Generation)))
		Expect(got.Status.ReadyCondition().LastTransitionTime).To(Equal(readySince), "Ready all along")
	})

	It("tells of a drift corrected, and of a drift left in mode Warn, once per change", func() {
		s := &sink{}
		startOperator(ctx, ns, component.ReconcilerOptions{Notifier: s})
		values := map[string]any{"configMaps": map[string]any{"settings": map[string]any{"data": map[string]any{"value": "rendered"}}}}
		corrected := newComponent(ns, "corrected", values)
		Expect(env.Client.Create(ctx, corrected)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, corrected) }).Should(HavePrefix("True/Ready"))

		editConfigMap(ctx, ns, "settings", func(data map[string]string) { data["value"] = "edited" })
		eventually(func() []string { return s.told("corrected") }).Should(ContainElement(
			"DriftCorrected DriftCorrected: corrected, after a change made out of band, 1 object: ConfigMap " + ns + "/settings"))
		Expect(getConfigMap(ctx, ns, "settings").Data).To(HaveKeyWithValue("value", "rendered"))

		other := newNamespace(ctx)
		startOperator(ctx, other, component.ReconcilerOptions{Notifier: s})
		warned := newComponent(other, "warned", values)
		warned.Spec.Drift = manifests.DriftSettings{Mode: manifests.DriftWarn}
		Expect(env.Client.Create(ctx, warned)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, warned) }).Should(HavePrefix("True/Ready"))
		editConfigMap(ctx, other, "settings", func(data map[string]string) { data["value"] = "edited" })
		reported := "DriftReported DriftDetected: left, changed out of band (drift mode Warn), 1 object: ConfigMap " + other + "/settings"
		eventually(func() []string { return s.told("warned") }).Should(ContainElement(reported))
		for i := range 3 {
			labelConfigMap(ctx, other, "settings", fmt.Sprint(i)) // passes that find the same drift
		}
		Consistently(func() int { return count(s.told("warned"), reported) }).WithTimeout(2 * time.Second).Should(Equal(1))
	})

	It("tells once of a wave that has waited longer than the bound, and of Ready once it is", func() {
		s := &sink{}
		startOperator(ctx, ns, component.ReconcilerOptions{Notifier: s, WaveHeldAfter: time.Millisecond})
		c := newComponent(ns, "held", map[string]any{"widgets": []any{"w1"}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		held := "WaveHeld Processing: not ready after 1ms, waiting for wave 0: test.wavekit.dev/Widget " + ns + "/w1: Creating, InProgress"
		eventually(func() []string { return s.told("held") }).Should(Equal([]string{held}))
		for i := range 3 { // events of the Widget: passes that find the wave held still
			labelWidget(ctx, ns, "w1", fmt.Sprint(i))
		}
		Consistently(func() []string { return s.told("held") }).WithTimeout(2*time.Second).Should(Equal([]string{held}), "told once")

		setWidgetReady(ctx, ns, "w1")
		eventually(func() []string { return s.told("held") }).Should(Equal([]string{held, "Ready Ready: every object is applied and ready"}))
	})

	It("tells the source revision, which a commit status needs", func() {
		s := &sink{}
		const revision = "main@sha1:0123456789abcdef0123456789abcdef01234567"
		startOperatorWith(ctx, ns, component.ReconcilerOptions{Notifier: s}, func(g *valuesGenerator) manifests.Generator {
			return reportingGenerator{Generator: g, source: manifests.SourceInfo{URL: "https://github.com/acme/shop", Revision: revision}}
		})
		c := newComponent(ns, "revised", map[string]any{"fail": "broken"})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() []string { return s.told("revised") }).Should(HaveLen(1))
		Expect(s.last("revised").Revision).To(Equal(revision), "the revision being rendered, though it failed")
		update(ctx, c, func(c *v1alpha1.Component) { setValues(c, configMapValues(1)) })
		eventually(func() []string { return s.told("revised") }).Should(HaveLen(2))
		Expect(s.last("revised").Kind).To(Equal(notify.KindReady))
		Expect(s.last("revised").Revision).To(Equal(revision))
	})

	It("sets the commit status of the revision it renders on GitHub's API (a real HTTP server), through a dispatcher", func() {
		api := fakegithub.New()
		DeferCleanup(api.Close)
		const commit = "0123456789abcdef0123456789abcdef01234567"
		d := notify.NewDispatcher(notify.To("github", &notifiers.GitHub{API: api.URL, Owner: "acme", Repo: "shop", Token: "ghp_x"}),
			notify.Options{Name: "github." + ns})
		runDispatcher(ctx, d)
		startOperatorWith(ctx, ns, component.ReconcilerOptions{Notifier: d}, func(g *valuesGenerator) manifests.Generator {
			return reportingGenerator{Generator: g, source: manifests.SourceInfo{URL: "https://github.com/acme/shop", Revision: "main@sha1:" + commit}}
		})
		c := newComponent(ns, "shop", map[string]any{"fail": "broken"})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() []fakegithub.Status { return api.Statuses("acme", "shop", commit) }).Should(ConsistOf(fakegithub.Status{
			State: "failure", Context: "component/" + ns + "/shop", Description: "Stalled: rendering: template values.yaml:3: broken"}))
		update(ctx, c, func(c *v1alpha1.Component) { setValues(c, configMapValues(1)) })
		eventually(func() []fakegithub.Status { return api.Statuses("acme", "shop", commit) }).Should(HaveLen(2))
		Expect(api.Statuses("acme", "shop", commit)[0]).To(Equal(fakegithub.Status{
			State: "success", Context: "component/" + ns + "/shop", Description: "Ready: every object is applied and ready"}))
	})

	It("goes on reconciling at once while the receiver hangs: the alerts it cannot take are dropped and counted", func() {
		hung := &hangingReceiver{}
		name := "hung." + ns
		d := notify.NewDispatcher(notify.To("hung", hung), notify.Options{Name: name, ReceiverQueueSize: 2, Timeout: time.Hour, Burst: -1})
		runDispatcher(ctx, d)
		startOperator(ctx, ns, component.ReconcilerOptions{Notifier: d})
		const k = 12
		for i := range k {
			name := fmt.Sprintf("c%02d", i)
			Expect(env.Client.Create(ctx, newComponent(ns, name, map[string]any{"configMaps": map[string]any{name: map[string]any{}}}))).To(Succeed())
		}
		eventually(func() int { return readyComponents(ctx, ns) }).Should(Equal(k))
		eventually(func() float64 {
			return counter("wavekit_alerts_dropped_total", map[string]string{"operator": name, "reason": "queue_full"})
		}).Should(Equal(float64(k-3)), "one in flight, two queued, the rest dropped")
		Expect(hung.calls.Load()).To(Equal(int64(1)), "the receiver still holds the first")
	})
})

// reportingGenerator reports a source, as a generator that fetches one does.
type reportingGenerator struct {
	manifests.Generator
	source manifests.SourceInfo
}

func (g reportingGenerator) Generate(ctx context.Context, namespace, name string, p manifests.Parameters) ([]client.Object, error) {
	manifests.ReportSource(ctx, g.source)
	return g.Generator.Generate(ctx, namespace, name, p)
}

// hangingReceiver never answers: a try ends with its context only.
type hangingReceiver struct{ calls atomic.Int64 }

func (h *hangingReceiver) Notify(ctx context.Context, _ notify.Event) error {
	h.calls.Add(1)
	<-ctx.Done()
	return ctx.Err()
}

// runDispatcher runs d until the spec ends.
func runDispatcher(ctx context.Context, d *notify.Dispatcher) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = d.Start(ctx)
	}()
	DeferCleanup(func() {
		cancel()
		<-done
	})
}

// readyComponents counts the Ready Components of ns.
func readyComponents(ctx context.Context, ns string) int {
	var list v1alpha1.ComponentList
	Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	n := 0
	for _, c := range list.Items {
		if c.Status.State == component.StateReady {
			n++
		}
	}
	return n
}

// labelWidget sets a label on the Widget ns/name, which sends its
// component's reconciler an event.
func labelWidget(ctx context.Context, ns, name, value string) {
	eventually(func() error {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("test.wavekit.dev/v1")
		u.SetKind("Widget")
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
			return err
		}
		labels := u.GetLabels()
		labels["touched"] = value // besides the owner's label
		u.SetLabels(labels)
		return env.Client.Update(ctx, u)
	}).Should(Succeed())
}
