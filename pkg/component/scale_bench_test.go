package component_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// BenchmarkLargeComponent applies one component of N ConfigMaps in 10 waves
// and reports the time until it is Ready, the requests by kind of request
// and the size of its status (the inventory is most of it).
func BenchmarkLargeComponent(b *testing.B) {
	for _, n := range []int{1000, 2000, 5000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchmarkLargeComponent(b, n)
			}
		})
	}
}

func benchmarkLargeComponent(b *testing.B, objects int) {
	e := benchEnv.Get(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := benchNamespace(b, ctx, e)
	counter := runUntilReady(b, ctx, e, ns, configMapsInWaves(objects, 10), component.ReconcilerOptions{MaxConcurrentReconciles: 4}, []string{"large"})
	reportRequests(b, counter, 1)
	c := &v1alpha1.Component{}
	if err := e.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "large"}, c); err != nil {
		b.Fatal(err)
	}
	status, err := json.Marshal(c.Status)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(status))/1024, "status-KiB")
	b.ReportMetric(float64(len(status))/float64(objects), "status-B/object")
}

// BenchmarkFluxShape creates 1000 components of 4 objects each (Deployment,
// ServiceAccount, Service, ConfigMap: the shape of Flux's own benchmark) at
// the default number of concurrent reconciles, and reports the requests per
// component, the time until all are Ready and the peak RSS of this process
// (operator and benchmark; test/bench measures the operator binary alone).
// It runs on the whole local cluster: the Deployment controller reports the
// Deployments available (see fluxShape). Then, with nothing changing, it
// counts the operator's requests for one minute.
func BenchmarkFluxShape(b *testing.B) {
	for _, workers := range []int{component.DefaultMaxConcurrentReconciles} {
		b.Run(fmt.Sprintf("components=1000/workers=%d", workers), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchmarkFluxShape(b, 1000, workers)
			}
		})
	}
}

func benchmarkFluxShape(b *testing.B, k, workers int) {
	e := benchCluster.Get(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := benchNamespace(b, ctx, e)
	// Requeued every 30s, every component is reconciled again while the
	// steady state is measured.
	opts := component.ReconcilerOptions{MaxConcurrentReconciles: workers, RequeueInterval: 30 * time.Second}
	counter := runUntilReady(b, ctx, e, ns, fluxShape(), opts, componentNames("app", k))
	reportRequests(b, counter, k)
	steadyState(b, counter, time.Minute)
}

// steadyState counts the operator's requests and reconciles over a window in
// which nothing changes and reports them per minute.
func steadyState(b *testing.B, counter *apicount.Counter, window time.Duration) {
	counter.Reset()
	reconciles := reconcileTotal(b)
	time.Sleep(window)
	perMinute := func(n int) float64 { return float64(n) / window.Minutes() }
	b.ReportMetric(perMinute(int(reconcileTotal(b)-reconciles)), "steady-reconciles/min")
	b.ReportMetric(perMinute(counter.Writes()), "steady-writes/min")
	verbs := counter.Verbs()
	b.ReportMetric(perMinute(verbs["get"]+verbs["list"]), "steady-reads/min")
	if counter.Writes() != 0 {
		b.Logf("steady-state writes: %s", counter)
	}
}

// reconcileTotal sums controller-runtime's reconcile counter of this process.
func reconcileTotal(b *testing.B) float64 {
	families, err := metrics.Registry.Gather()
	if err != nil {
		b.Fatal(err)
	}
	total := 0.0
	for _, family := range families {
		if family.GetName() == "controller_runtime_reconcile_total" {
			for _, m := range family.GetMetric() {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

// reportRequests reports the operator's requests per component: object
// creates (server-side applies, the default update policy, or POSTs),
// status writes, Events, other writes (the finalizer) and reads.
func reportRequests(b *testing.B, counter *apicount.Counter, components int) {
	per := func(n int) float64 { return float64(n) / float64(components) }
	statusWrites := counter.Count("update", "components/status")
	events := counter.Count("create", "events")
	creates := counter.Count("create") - events + counter.Count("apply")
	b.ReportMetric(per(creates), "creates/component")
	b.ReportMetric(per(statusWrites), "status-writes/component")
	b.ReportMetric(per(events), "events/component")
	b.ReportMetric(per(counter.Writes()-creates-statusWrites-events), "other-writes/component")
	verbs := counter.Verbs()
	b.ReportMetric(per(verbs["get"]+verbs["list"]), "reads/component")
	b.Logf("requests: %s", counter)
}

// configMapsInWaves renders n ConfigMaps spread over the given number of
// apply-order waves.
func configMapsInWaves(n, waves int) manifests.Generator {
	return manifests.GeneratorFunc(func(_ context.Context, namespace, name string, _ manifests.Parameters) ([]client.Object, error) {
		out := make([]client.Object, 0, n)
		for i := range n {
			cm := benchObject("v1", "ConfigMap", namespace, fmt.Sprintf("%s-%05d", name, i))
			cm.Object["data"] = map[string]any{"i": strconv.Itoa(i)}
			cm.SetAnnotations(map[string]string{benchOperator(namespace) + "/apply-order": strconv.Itoa(i * waves / n)})
			out = append(out, cm)
		}
		return out, nil
	})
}

// fluxShape renders a Deployment, ServiceAccount, Service and ConfigMap per
// component.
//
// The Deployment has 0 replicas: the Deployment controller creates its
// ReplicaSet and reports it available, as it does for every Deployment, but
// no pod is made. What the benchmark measures is the operator; 1000
// simulated pods would measure the ReplicaSet controller, the scheduler and
// kwok on the same cores instead (and not fit on the 110 pods of each of
// the 3 fake Nodes).
func fluxShape() manifests.Generator {
	return manifests.GeneratorFunc(func(_ context.Context, namespace, name string, _ manifests.Parameters) ([]client.Object, error) {
		labels := map[string]any{"app": name}
		sa := benchObject("v1", "ServiceAccount", namespace, name)
		cm := benchObject("v1", "ConfigMap", namespace, name)
		cm.Object["data"] = map[string]any{"app.conf": "name=" + name}
		svc := benchObject("v1", "Service", namespace, name)
		svc.Object["spec"] = map[string]any{
			"selector": labels,
			"ports":    []any{map[string]any{"name": "http", "port": int64(80), "targetPort": int64(8080)}},
		}
		deploy := benchObject("apps/v1", "Deployment", namespace, name)
		deploy.Object["spec"] = map[string]any{
			"replicas": int64(0),
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{
					"serviceAccountName": name,
					"containers": []any{map[string]any{
						"name": "app", "image": "registry.example/app:1.0",
						"ports": []any{map[string]any{"containerPort": int64(8080)}},
					}},
				},
			},
		}
		return []client.Object{sa, cm, svc, deploy}, nil
	})
}

func benchObject(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// benchNamespace creates a namespace of its own in e for one benchmark run.
func benchNamespace(b *testing.B, ctx context.Context, e *testcluster.Env) string {
	ns := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		b.Fatal(err)
	}
	return ns
}

// resetPeakRSS returns freed memory to the OS and resets VmHWM, so that the
// next peakRSSMiB reports the peak of one run, not of the whole process.
func resetPeakRSS() {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
