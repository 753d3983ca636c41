package component_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// test/tracing follows an install's spans through an OTLP receiver; these
// specs check that tracing, off or on, keeps a no-op pass free of requests
// (DESIGN invariant 4).
var _ = Describe("a traced reconciler", func() {
	var (
		ctx context.Context
		ns  string
	)
	BeforeEach(func() {
		ctx = context.Background()
		ns = newNamespace(ctx)
	})

	It("makes no request in a no-op pass with tracing off", func() {
		h := startOperator(ctx, ns, component.ReconcilerOptions{TracerProvider: noop.NewTracerProvider()})
		c := newComponent(ns, "untraced", configMapValues(3))
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		expectNoOpPass(ctx, h, c)
		Expect(getComponent(ctx, c).Status.LastTraceID).To(BeEmpty())
	})

	It("makes no request in a no-op pass with tracing on, and records the trace of the pass that wrote the status", func() {
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		DeferCleanup(tp.Shutdown)
		h := startOperator(ctx, ns, component.ReconcilerOptions{TracerProvider: tp})
		c := newComponent(ns, "traced", configMapValues(3))
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		expectNoOpPass(ctx, h, c)

		written := getComponent(ctx, c).Status.LastTraceID
		Expect(written).To(HaveLen(32))
		var names []string
		for _, s := range spans.GetSpans() {
			if s.SpanContext.TraceID().String() == written {
				names = append(names, s.Name)
			}
		}
		Expect(names).To(ContainElements("Reconcile", "read", "render", "plan", "wave", "write status"))
	})
})
