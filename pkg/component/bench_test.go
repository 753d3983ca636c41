package component_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// benchEnv is the bare control plane (kube-apiserver and etcd) of the
// benchmarks of ConfigMaps (the Ginkgo suite has its own): nothing but the
// API server decides when a ConfigMap is ready, and the controllers would
// only add load (the garbage collector watches every ConfigMap).
var benchEnv = &testcluster.Once{Options: testcluster.Options{Scheme: benchScheme()}}

// benchCluster is the whole local cluster (controllers, scheduler, kwok's
// fake Nodes) of the benchmarks of Deployments, which the Deployment
// controller reports available.
var benchCluster = &testcluster.Once{Options: testcluster.Options{Scheme: benchScheme(), Controllers: true}}

// TestMain stops the control planes that benchmarks start.
func TestMain(m *testing.M) {
	code := m.Run()
	_ = benchCluster.Stop()
	_ = benchEnv.Stop()
	os.Exit(code)
}

// BenchmarkComponents creates K components of 20 ConfigMaps each and waits
// until all are Ready; it reports the time, the API requests per component
// and the peak RSS of this process (operator and benchmark together).
func BenchmarkComponents(b *testing.B) {
	for _, k := range []int{100} {
		b.Run(fmt.Sprintf("components=%d/objects=20", k), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchmarkComponents(b, k, 20)
			}
		})
	}
}

func benchmarkComponents(b *testing.B, k, objects int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := benchEnv.Get(b)
	ns := benchNamespace(b, ctx, e)
	counter := runUntilReady(b, ctx, e, ns, configMapsInWaves(objects, 1), component.ReconcilerOptions{MaxConcurrentReconciles: 4}, componentNames("c", k))
	reportRequests(b, counter, k)
}

// runUntilReady starts an operator in namespace ns of e, creates one
// component per name, waits until all are Ready and reports the time that
// took and the peak RSS. It returns the counter of the operator's requests.
func runUntilReady(b *testing.B, ctx context.Context, e *testcluster.Env, ns string, gen manifests.Generator, opts component.ReconcilerOptions, names []string) *apicount.Counter {
	counter := apicount.New()
	resetPeakRSS()
	startBenchOperator(b, ctx, e, counter, ns, gen, opts)
	start := time.Now()
	for _, name := range names {
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ComponentSpec{Source: "bench"}}
		if err := e.Client.Create(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	waitAllReady(b, ctx, e.Client, ns, len(names))
	b.ReportMetric(time.Since(start).Seconds(), "s-to-ready")
	b.ReportMetric(peakRSSMiB(), "peak-RSS-MiB")
	return counter
}

func componentNames(prefix string, k int) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = fmt.Sprintf("%s%04d", prefix, i)
	}
	return names
}

// benchOperator names the operator of one run after its namespace: its own
// label key keeps the objects of earlier runs, which stay in the control
// plane, out of its caches.
func benchOperator(ns string) string { return ns + ".wavekit.dev" }

// startBenchOperator runs a reconciler of Components with the generator
// against e, in a manager of its own, counting its requests; configure
// adds to the reconciler (hooks) before it starts.
func startBenchOperator(b *testing.B, ctx context.Context, e *testcluster.Env, counter *apicount.Counter, ns string, gen manifests.Generator, opts component.ReconcilerOptions, configure ...func(*component.Reconciler[*v1alpha1.Component])) {
	ctrl.SetLogger(logr.Discard()) // else controller-runtime warns, with a stack trace, that no logger is set
	options := componenttest.ManagerOptions(e.Scheme)
	options.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}}
	mgr, err := ctrl.NewManager(counter.Wrap(e.Config), options)
	if err != nil {
		b.Fatal(err)
	}
	opts.Filter = func(c component.Component) bool { return c.GetNamespace() == ns }
	r := component.NewReconciler[*v1alpha1.Component](benchOperator(ns), gen, opts)
	for _, c := range configure {
		c(r)
	}
	if err := r.SetupWithManager(mgr); err != nil {
		b.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = mgr.Start(ctx)
	}()
	// Once ctx ends, wait until the manager and its targets have stopped,
	// so that the next run's peak RSS does not count this run's caches.
	b.Cleanup(func() { <-stopped })
}

// waitAllReady polls until the k components of ns are Ready, and fails
// with a summary of those that are not after 10 minutes.
func waitAllReady(b *testing.B, ctx context.Context, c client.Client, ns string, k int) {
	deadline := time.Now().Add(benchReadyTimeout)
	for {
		var list v1alpha1.ComponentList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			b.Fatal(err)
		}
		var notReady []string
		for _, item := range list.Items {
			if item.Status.State != component.StateReady {
				notReady = append(notReady, item.Name+": "+conditionSummary(&item))
			}
		}
		if len(list.Items) == k && len(notReady) == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d components are not ready after %s, e.g.\n%s", len(notReady), k, benchReadyTimeout, strings.Join(notReady[:min(5, len(notReady))], "\n"))
		}
		time.Sleep(500 * time.Millisecond) // listing 1000 components more often would slow the API server being measured
	}
}

// benchReadyTimeout bounds waitAllReady.
const benchReadyTimeout = 10 * time.Minute

func conditionSummary(c *v1alpha1.Component) string {
	cond := c.Status.ReadyCondition()
	if cond == nil {
		return "no Ready condition"
	}
	return fmt.Sprintf("%s/%s: %s", cond.Status, cond.Reason, cond.Message)
}

func benchScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = v1alpha1.AddToScheme(s)
	return s
}

// peakRSSMiB reads VmHWM, the peak resident set size of this process.
func peakRSSMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return 0
}
