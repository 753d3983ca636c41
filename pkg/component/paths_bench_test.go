package component_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// BenchmarkComponentPaths drives the four paths of issue 57 on one
// Component of N ConfigMaps in one wave: the apply of N new objects until
// Ready, a no-op Reconcile (called directly, pathRounds times), a drift
// repair (one ConfigMap changed by another writer, pathRounds times) and
// the delete until the Component is gone. It reports each path's time, the
// CPU this process used (operator and benchmark client) and its requests.
//
// With WAVEKIT_BENCH_PROFILE=<phase>:<file> (phase apply, noop, drift or
// delete) it writes a CPU profile of that phase alone to file.
func BenchmarkComponentPaths(b *testing.B) {
	for _, n := range []int{500} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			for range b.N {
				benchmarkComponentPaths(b, n)
			}
		})
	}
}

// pathRounds is how many no-op Reconciles and drift repairs are measured:
// 20, or WAVEKIT_BENCH_ROUNDS (200 gives steadier figures).
var pathRounds = func() int {
	if n, err := strconv.Atoi(os.Getenv("WAVEKIT_BENCH_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 20
}()

func benchmarkComponentPaths(b *testing.B, n int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := benchEnv.Get(b)
	ns := benchNamespace(b, ctx, e)
	counter := apicount.New()
	var renders atomic.Int64
	var r *component.Reconciler[*v1alpha1.Component]
	startBenchOperator(b, ctx, e, counter, ns, warmedUp(configMapsInWaves(n, 1), &renders), component.ReconcilerOptions{}, func(rec *component.Reconciler[*v1alpha1.Component]) { r = rec })
	// A first Component warms the operator up (its caches, discovery, the
	// ConfigMap informer), as a running operator is; then the measured one.
	warmup := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "warmup"}, Spec: v1alpha1.ComponentSpec{Source: "bench"}}
	if err := e.Client.Create(ctx, warmup); err != nil {
		b.Fatal(err)
	}
	waitReadyQuickly(b, ctx, e.Client, warmup)
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "paths"}, Spec: v1alpha1.ComponentSpec{Source: "bench"}}
	p := &pathRun{b: b, counter: counter, renders: &renders}
	p.phase("apply", 1, func() {
		if err := e.Client.Create(ctx, c); err != nil {
			b.Fatal(err)
		}
		waitReadyQuickly(b, ctx, e.Client, c)
	})
	time.Sleep(time.Second) // the write's own watch events settle
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: c.Name}}
	p.phase("noop", pathRounds, func() {
		for range pathRounds {
			if _, err := r.Reconcile(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	p.phase("drift", pathRounds, func() {
		for i := range pathRounds {
			repairOne(b, ctx, e.Client, ns, fmt.Sprintf("%s-%05d", c.Name, i*n/pathRounds))
		}
	})
	p.phase("delete", 1, func() {
		if err := e.Client.Delete(ctx, c); err != nil {
			b.Fatal(err)
		}
		waitGoneQuickly(b, ctx, e.Client, c)
	})
}

// warmedUp renders one ConfigMap for the Component "warmup", and what gen
// renders for the others, which it counts in renders.
func warmedUp(gen manifests.Generator, renders *atomic.Int64) manifests.Generator {
	return manifests.GeneratorFunc(func(ctx context.Context, namespace, name string, p manifests.Parameters) ([]client.Object, error) {
		if name == "warmup" {
			return configMapsInWaves(1, 1).Generate(ctx, namespace, name, p)
		}
		renders.Add(1)
		return gen.Generate(ctx, namespace, name, p)
	})
}

// pathRun measures the phases of BenchmarkComponentPaths.
type pathRun struct {
	b       *testing.B
	counter *apicount.Counter
	renders *atomic.Int64 // the measured Component's renders
}

// phase runs fn, which does rounds of the phase, and reports its time, CPU,
// requests and renders per round.
func (p *pathRun) phase(name string, rounds int, fn func()) {
	stop := p.profile(name)
	p.counter.Reset()
	renders := p.renders.Load()
	cpu, start := cpuTime(), time.Now()
	fn()
	elapsed, used := time.Since(start), cpuTime()-cpu
	stop()
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(rounds) }
	p.b.ReportMetric(per(elapsed), name+"-ms")
	p.b.ReportMetric(per(used), name+"-cpu-ms")
	p.b.ReportMetric(float64(p.counter.Writes())/float64(rounds), name+"-writes")
	verbs := p.counter.Verbs()
	p.b.ReportMetric(float64(verbs["get"]+verbs["list"])/float64(rounds), name+"-reads")
	p.b.ReportMetric(float64(p.renders.Load()-renders)/float64(rounds), name+"-renders")
}

// profile starts the CPU profile of phase name when WAVEKIT_BENCH_PROFILE
// asks for it, and returns what stops it.
func (p *pathRun) profile(name string) func() {
	phase, file, ok := cutEnv("WAVEKIT_BENCH_PROFILE")
	if !ok || phase != name {
		return func() {}
	}
	f, err := os.Create(file)
	if err != nil {
		p.b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		p.b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}

func cutEnv(name string) (string, string, bool) {
	return strings.Cut(os.Getenv(name), ":")
}

// repairOne changes the data of ConfigMap name as another writer would and
// waits until the operator has restored it.
func repairOne(b *testing.B, ctx context.Context, c client.Client, ns, name string) {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
		b.Fatal(err)
	}
	want := maps.Clone(cm.Data)
	cm.Data["i"] = "drifted"
	if err := c.Update(ctx, cm); err != nil {
		b.Fatal(err)
	}
	pollQuickly(b, func() bool {
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			b.Fatal(err)
		}
		return cm.Data["i"] == want["i"]
	})
}

// waitReadyQuickly waits until c is Ready at its generation, polling often.
func waitReadyQuickly(b *testing.B, ctx context.Context, cl client.Client, c *v1alpha1.Component) {
	pollEvery(b, 20*time.Millisecond, func() bool {
		var got v1alpha1.Component
		if err := cl.Get(ctx, client.ObjectKeyFromObject(c), &got); err != nil {
			b.Fatal(err)
		}
		cond := got.Status.ReadyCondition()
		return got.Status.State == component.StateReady && cond != nil && cond.ObservedGeneration == got.Generation
	})
}

// waitGoneQuickly waits until c is gone, polling often.
func waitGoneQuickly(b *testing.B, ctx context.Context, cl client.Client, c *v1alpha1.Component) {
	pollEvery(b, 20*time.Millisecond, func() bool {
		err := cl.Get(ctx, client.ObjectKeyFromObject(c), &v1alpha1.Component{})
		if client.IgnoreNotFound(err) != nil {
			b.Fatal(err)
		}
		return err != nil
	})
}

// pollQuickly calls done every 5 ms until it says so, for at most
// benchReadyTimeout.
func pollQuickly(b *testing.B, done func() bool) { pollEvery(b, 5*time.Millisecond, done) }

// pollEvery calls done every interval until it says so, for at most
// benchReadyTimeout. A Component of N objects is polled every 20 ms: its
// status lists them all, and decoding it more often would count as the
// operator's CPU.
func pollEvery(b *testing.B, interval time.Duration, done func() bool) {
	deadline := time.Now().Add(benchReadyTimeout)
	for !done() {
		if time.Now().After(deadline) {
			b.Fatalf("not done after %s", benchReadyTimeout)
		}
		time.Sleep(interval)
	}
}
