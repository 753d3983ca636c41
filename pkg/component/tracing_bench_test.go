package component_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// BenchmarkTracedPass measures what tracing costs a pass: the no-op
// Reconcile of a Ready Component of 500 ConfigMaps in 5 waves (read,
// render, plan, five waves), called directly tracedRounds times, with
// tracing off (no TracerProvider), on with every pass sampled, and on with
// 1 % sampled. Spans go through the SDK's batch processor to an exporter
// that drops them, so the figures are the SDK's cost and not a network's.
// It reports the time, the CPU and the allocations of this process per
// pass, and the requests (none: invariant 4 holds with tracing on).
func BenchmarkTracedPass(b *testing.B) {
	for _, mode := range []struct {
		name  string
		ratio float64 // < 0: off
	}{{"tracing=off", -1}, {"tracing=1.0", 1}, {"tracing=0.01", 0.01}} {
		b.Run(mode.name+"/objects=500", func(b *testing.B) {
			for range b.N {
				benchmarkTracedPass(b, 500, mode.ratio)
			}
		})
	}
}

// tracedRounds is how many no-op passes each mode measures.
const tracedRounds = 200

func benchmarkTracedPass(b *testing.B, n int, ratio float64) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := benchEnv.Get(b)
	ns := benchNamespace(b, ctx, e)
	opts := component.ReconcilerOptions{}
	if ratio >= 0 {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(dropSpans{}),
			sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))))
		defer func() { _ = tp.Shutdown(context.Background()) }()
		opts.TracerProvider = tp
	}
	counter := apicount.New()
	var r *component.Reconciler[*v1alpha1.Component]
	startBenchOperator(b, ctx, e, counter, ns, configMapsInWaves(n, 5), opts, func(rec *component.Reconciler[*v1alpha1.Component]) { r = rec })
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "traced"}, Spec: v1alpha1.ComponentSpec{Source: "bench"}}
	if err := e.Client.Create(ctx, c); err != nil {
		b.Fatal(err)
	}
	waitReadyQuickly(b, ctx, e.Client, c)
	time.Sleep(time.Second) // the write's own watch events settle
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: c.Name}}
	for range 10 { // warm up
		if _, err := r.Reconcile(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	counter.Reset()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu, start := cpuTime(), time.Now()
	for range tracedRounds {
		if _, err := r.Reconcile(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	elapsed, used := time.Since(start), cpuTime()-cpu
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(elapsed.Microseconds())/tracedRounds, "us/pass")
	b.ReportMetric(float64(used.Microseconds())/tracedRounds, "cpu-us/pass")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/tracedRounds, "allocs/pass")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/1024/tracedRounds, "KiB/pass")
	requests := 0
	for _, n := range counter.Snapshot() {
		requests += n
	}
	b.ReportMetric(float64(requests)/tracedRounds, "requests/pass")
}

// dropSpans is a span exporter that drops what it is given.
type dropSpans struct{}

func (dropSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (dropSpans) Shutdown(context.Context) error                             { return nil }
