package bench_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// BenchmarkOperatorVsRaw8 compares the component-operator binary applying
// and deleting one Component of N ConfigMaps with a bare client creating and
// deleting the same ConfigMaps with 8 workers, vsRounds times each,
// alternating, and reports the medians.
func BenchmarkOperatorVsRaw8(b *testing.B) {
	for _, n := range []int{500, 2000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			for range b.N {
				operatorVsRaw8(b, n)
			}
		})
	}
}

// vsRounds is how many times BenchmarkOperatorVsRaw8 measures each side.
const vsRounds = 5

func operatorVsRaw8(b *testing.B, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	namespaces := []string{newNamespace(b, env.Get(b), "warmup")}
	for range vsRounds {
		namespaces = append(namespaces, newNamespace(b, env.Get(b), "operator"))
	}
	cpuFile, profiling := os.LookupEnv("WAVEKIT_BENCH_CPU")
	var extra []string
	pprof := freeAddress(b)
	if profiling {
		extra = []string{"--pprof-bind-address", pprof}
	}
	op := startOperator(b, ctx, env.Get(b), map[string]string{"bench": configMapSource(b, n), "warmup": configMapSource(b, 1)}, namespaces, extra...)
	// A first Component warms the operator up (discovery, the ConfigMap
	// informer), as a running operator is; then the measured ones.
	meter := cpuMeter{operator: op.cmd.Process.Pid, server: serverPID(b, env.Get(b).Config)}
	applyAndDelete(b, ctx, namespaces[0], "warmup", meter)
	if profiling {
		defer profileCPU(b, ctx, pprof, fmt.Sprintf("%s.%d.pb.gz", cpuFile, n))()
	}
	var rawApply, rawDelete, rawSSA, apply, del []time.Duration
	var rawSSACPU, applyCPU []cpuSample
	for _, ns := range namespaces[1:] {
		ra, rd := raw8(b, ctx, n)
		ssa, ssaCPU := rawSSA8(b, ctx, n, namespaces[0]+".wavekit.dev", meter)
		oa, od, oaCPU := applyAndDelete(b, ctx, ns, "bench", meter)
		rawApply, rawDelete, apply, del = append(rawApply, ra), append(rawDelete, rd), append(apply, oa), append(del, od)
		rawSSA, rawSSACPU, applyCPU = append(rawSSA, ssa), append(rawSSACPU, ssaCPU), append(applyCPU, oaCPU)
	}
	rss := op.stop(b)
	report(b, n, median(apply), median(rawApply), median(del), median(rawDelete), rss)
	ssa := median(rawSSA)
	b.ReportMetric(float64(ssa.Milliseconds()), "raw8-ssa-apply-ms")
	b.ReportMetric(median(apply).Seconds()/ssa.Seconds(), "apply-x-raw8-ssa")
	reportCPU(b, medianCPU(applyCPU), medianCPU(rawSSACPU))
}

// reportCPU reports the CPU of the operator's install and of the bare
// server-side-apply client's (its own process), and the API server's
// during each.
func reportCPU(b *testing.B, operator, bare cpuSample) {
	ms := func(d time.Duration) float64 { return float64(d.Milliseconds()) }
	b.ReportMetric(ms(operator.operator), "operator-apply-cpu-ms")
	b.ReportMetric(ms(operator.server), "operator-apply-server-cpu-ms")
	b.ReportMetric(ms(bare.self), "raw8-ssa-cpu-ms")
	b.ReportMetric(ms(bare.server), "raw8-ssa-server-cpu-ms")
	if bare.self > 0 {
		b.ReportMetric(operator.operator.Seconds()/bare.self.Seconds(), "apply-cpu-x-raw8-ssa")
	}
	b.Logf("\n| install, CPU (medians) | client | kube-apiserver |\n| operator | %s | %s |\n| bare 8-worker server-side apply | %s | %s |",
		operator.operator.Round(time.Millisecond), operator.server.Round(time.Millisecond), bare.self.Round(time.Millisecond), bare.server.Round(time.Millisecond))
}

func report(b *testing.B, n int, apply, rawApply, del, rawDelete time.Duration, rss float64) {
	ms := func(d time.Duration) float64 { return float64(d.Milliseconds()) }
	b.ReportMetric(ms(rawApply), "raw8-apply-ms")
	b.ReportMetric(ms(apply), "operator-apply-ms")
	b.ReportMetric(apply.Seconds()/rawApply.Seconds(), "apply-x-raw8")
	b.ReportMetric(ms(rawDelete), "raw8-delete-ms")
	b.ReportMetric(ms(del), "operator-delete-ms")
	b.ReportMetric(del.Seconds()/rawDelete.Seconds(), "delete-x-raw8")
	b.ReportMetric(rss, "operator-peak-RSS-MiB")
	b.Logf("\n| N | apply → Ready: operator / raw8 | ratio | delete → gone: operator / raw8 | ratio | operator peak RSS |\n"+
		"| %d | %s / %s | %.2f × | %s / %s | %.2f × | %.0f MiB |",
		n, apply.Round(time.Millisecond), rawApply.Round(time.Millisecond), apply.Seconds()/rawApply.Seconds(),
		del.Round(time.Millisecond), rawDelete.Round(time.Millisecond), del.Seconds()/rawDelete.Seconds(), rss)
}

// profileCPU starts writing the operator's CPU profile of the next
// operatorProfileSeconds to file, for WAVEKIT_BENCH_CPU=<file prefix>: where
// the operator's time goes in the measured rounds (the bare clients' rounds
// between them cost it nothing). The function it returns waits until the
// profile is written.
func profileCPU(b *testing.B, ctx context.Context, addr, file string) func() {
	out, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- load(ctx, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, operatorProfileSeconds), "", out)
	}()
	return func() {
		defer out.Close()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
}

// operatorProfileSeconds is how long profileCPU profiles: the rounds of
// N = 500 take about 15 s.
const operatorProfileSeconds = 20

// median returns the middle of durations (which it sorts).
func median(durations []time.Duration) time.Duration {
	slices.Sort(durations)
	return durations[len(durations)/2]
}

// raw8 creates n ConfigMaps in a namespace of their own with a bare client
// and 8 workers, then deletes them the same way, and returns both times.
func raw8(b *testing.B, ctx context.Context, n int) (time.Duration, time.Duration) {
	c := bareClient(b)
	ns := newNamespace(b, env.Get(b), "raw8")
	objects := make([]client.Object, n)
	for i := range objects {
		objects[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: configMapName(i)}, Data: map[string]string{"value": "v1"}}
	}
	apply := inWorkers(b, 8, objects, func(o client.Object) error { return c.Create(ctx, o) })
	del := inWorkers(b, 8, objects, func(o client.Object) error { return c.Delete(ctx, o) })
	return apply, del
}

// inWorkers runs do for every object, with workers goroutines, and returns
// how long that took.
func inWorkers(b *testing.B, workers int, objects []client.Object, do func(client.Object) error) time.Duration {
	next := make(chan client.Object)
	errs := make(chan error, workers)
	start := time.Now()
	for range workers {
		go func() {
			var first error
			for o := range next {
				if err := do(o); err != nil && first == nil {
					first = err
				}
			}
			errs <- first
		}()
	}
	for _, o := range objects {
		next <- o
	}
	close(next)
	for range workers {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

func configMapName(i int) string { return fmt.Sprintf("cm-%05d", i) }

// configMapSource writes a source folder of Go templates: n ConfigMaps in
// the component's namespace.
func configMapSource(b *testing.B, n int) string {
	dir := b.TempDir()
	var manifest strings.Builder
	for i := range n {
		fmt.Fprintf(&manifest, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: {{ .Namespace }}\ndata:\n  value: v1\n", configMapName(i))
	}
	if err := os.WriteFile(filepath.Join(dir, "configmaps.yaml"), []byte(manifest.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return dir
}

// applyAndDelete creates a Component of source in ns, waits
// until it is Ready, deletes it and waits until it is gone, and returns both
// times as the operator's watchers see them.
func applyAndDelete(b *testing.B, ctx context.Context, ns, source string, meter cpuMeter) (time.Duration, time.Duration, cpuSample) {
	e := env.Get(b)
	w, err := client.NewWithWatch(e.Config, client.Options{Scheme: e.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bench"}, Spec: v1alpha1.ComponentSpec{Source: source}}
	ready := func(t watch.EventType, got *v1alpha1.Component) bool {
		return got.Status.State == component.StateReady && got.Status.ObservedGeneration == got.Generation
	}
	before := meter.sample()
	applied := timeUntil(b, ctx, w, ns, func() error { return e.Client.Create(ctx, c) }, ready)
	cpu := meter.sample().minus(before)
	gone := func(t watch.EventType, _ *v1alpha1.Component) bool { return t == watch.Deleted }
	deleted := timeUntil(b, ctx, w, ns, func() error { return e.Client.Delete(ctx, c) }, gone)
	return applied, deleted, cpu
}

// timeUntil watches the Components of ns, does act and returns the time
// from act until an event satisfies done.
func timeUntil(b *testing.B, ctx context.Context, w client.WithWatch, ns string, act func() error, done func(watch.EventType, *v1alpha1.Component) bool) time.Duration {
	watcher, err := w.Watch(ctx, &v1alpha1.ComponentList{}, client.InNamespace(ns))
	if err != nil {
		b.Fatal(err)
	}
	defer watcher.Stop()
	start := time.Now()
	if err := act(); err != nil {
		b.Fatal(err)
	}
	for event := range watcher.ResultChan() {
		if got, ok := event.Object.(*v1alpha1.Component); ok && done(event.Type, got) {
			return time.Since(start)
		}
	}
	b.Fatalf("watch of Components in %s ended before the operator was done: %v", ns, ctx.Err())
	return 0
}

// operatorProcess is the component-operator binary serving one source.
type operatorProcess struct {
	args   []string
	probes string
	cmd    *exec.Cmd
	out    strings.Builder
	// exited is closed once the process has exited, waitErr then says how.
	exited  chan struct{}
	waitErr error
}

// startOperator runs the component-operator binary against e with the
// sources (name to directory) and extra flags, and returns once it reports
// ready. It
// watches the Components of namespaces only, and its operator name is the
// first namespace's, so its caches hold none of the objects that earlier
// runs left in the control plane.
func startOperator(b *testing.B, ctx context.Context, e *testcluster.Env, sources map[string]string, namespaces []string, extra ...string) *operatorProcess {
	return startOperatorAs(b, ctx, e.Config, sources, namespaces, extra...)
}

// startOperatorAs is startOperator with the identity and API server of cfg.
func startOperatorAs(b *testing.B, ctx context.Context, cfg *rest.Config, sources map[string]string, namespaces []string, extra ...string) *operatorProcess {
	kubeconfig := filepath.Join(b.TempDir(), "kubeconfig")
	if err := testcluster.WriteKubeconfig(cfg, kubeconfig); err != nil {
		b.Fatal(err)
	}
	op := &operatorProcess{probes: freeAddress(b)}
	op.args = []string{"--kubeconfig", kubeconfig, "--operator-name", namespaces[0] + ".wavekit.dev",
		"--metrics-bind-address", "0", "--health-probe-bind-address", op.probes, "--watch-namespaces", strings.Join(namespaces, ",")}
	for name, dir := range sources {
		op.args = append(op.args, "--source", name+"="+dir)
	}
	op.args = append(op.args, extra...)
	op.start(b, ctx)
	op.waitReady(b, ctx)
	return op
}

// start starts the process (again, after stop).
func (o *operatorProcess) start(b *testing.B, ctx context.Context) {
	o.out.Reset()
	o.cmd = exec.Command(binary(b, "component-operator"), o.args...)
	o.cmd.Stdout, o.cmd.Stderr = &o.out, &o.out
	if err := o.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	o.exited = make(chan struct{})
	go func() {
		o.waitErr = o.cmd.Wait()
		close(o.exited)
	}()
}

// waitReady returns once the process's /readyz answers 200: its caches
// have synced.
func (o *operatorProcess) waitReady(b *testing.B, ctx context.Context) {
	for {
		resp, err := http.Get("http://" + o.probes + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-o.exited:
			b.Fatalf("the operator exited: %v\n%s", o.waitErr, o.out.String())
		case <-ctx.Done():
			b.Fatalf("the operator did not become ready: %v\n%s", err, o.out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop ends the operator with SIGTERM and returns its peak RSS.
func (o *operatorProcess) stop(b *testing.B) float64 {
	// The process's own high-water mark, read while it runs: the rusage
	// of a child that exited reports at least this benchmark's own peak
	// when it started the child (maxRSSMiB), so a replica smaller than
	// the benchmark would read as the benchmark.
	peak := sampleProcess(o.cmd.Process.Pid).peakKiB / 1024
	_ = o.cmd.Process.Signal(syscall.SIGTERM)
	<-o.exited
	if o.waitErr != nil {
		b.Logf("operator exited: %v", o.waitErr)
	}
	if peak > 0 {
		return peak
	}
	return maxRSSMiB(o.cmd.ProcessState)
}

// freeAddress returns a local address that nothing listens on.
func freeAddress(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
