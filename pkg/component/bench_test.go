package component_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/apicount"
	"github.com/wavekit-dev/wavekit/internal/testenv"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// benchEnv is the control plane of the benchmarks (the Ginkgo suite has its own).
var benchEnv = &testenv.Once{Options: testenv.Options{Scheme: benchScheme()}}

// TestMain stops the control plane that benchmarks start.
func TestMain(m *testing.M) {
	code := m.Run()
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
	e := benchEnv.Get(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		b.Fatal(err)
	}
	counter := apicount.New()
	startBenchOperator(b, ctx, counter, ns, objects)
	start := time.Now()
	for i := range k {
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("c%03d", i)}, Spec: v1alpha1.ComponentSpec{Source: "bench"}}
		if err := e.Client.Create(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	waitAllReady(b, ctx, e.Client, ns, k)
	elapsed := time.Since(start)
	b.ReportMetric(elapsed.Seconds(), "s-to-ready")
	b.ReportMetric(float64(counter.Writes())/float64(k), "writes/component")
	b.ReportMetric(float64(counter.Count("get")+counter.Count("list"))/float64(k), "reads/component")
	b.ReportMetric(peakRSSMiB(), "peak-RSS-MiB")
}

func startBenchOperator(b *testing.B, ctx context.Context, counter *apicount.Counter, ns string, objects int) {
	mgr, err := ctrl.NewManager(counter.Wrap(benchEnv.Get(b).Config), ctrl.Options{
		Scheme: benchEnv.Get(b).Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		b.Fatal(err)
	}
	gen := manifests.GeneratorFunc(func(_ context.Context, namespace, name string, _ manifests.Parameters) ([]client.Object, error) {
		out := make([]client.Object, 0, objects)
		for i := range objects {
			cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"i": strconv.Itoa(i)}}}
			cm.SetNamespace(namespace)
			cm.SetName(fmt.Sprintf("%s-%02d", name, i))
			out = append(out, cm)
		}
		return out, nil
	})
	r := component.NewReconciler[*v1alpha1.Component](operator, gen, component.ReconcilerOptions{
		MaxConcurrentReconciles: 4,
		Filter:                  func(c component.Component) bool { return c.GetNamespace() == ns },
	})
	if err := r.SetupWithManager(mgr); err != nil {
		b.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()
}

func waitAllReady(b *testing.B, ctx context.Context, c client.Client, ns string, k int) {
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		var list v1alpha1.ComponentList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			b.Fatal(err)
		}
		ready := 0
		for _, item := range list.Items {
			if item.Status.State == component.StateReady {
				ready++
			}
		}
		if ready == k {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatal("components did not become ready")
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
