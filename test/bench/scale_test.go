package bench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// BenchmarkOperatorComponents has the component-operator binary apply 1000
// Components of 4 objects each (Deployment, ServiceAccount, Service,
// ConfigMap: the shape of Flux's own benchmark), all created at once, with
// 1, 4 and 8 concurrent reconciles, and reports the time until all are Ready
// and the operator process's peak RSS, on the whole local cluster (see
// appSource).
func BenchmarkOperatorComponents(b *testing.B) {
	for _, workers := range []int{1, 4, 8} {
		b.Run(fmt.Sprintf("components=1000/workers=%d", workers), func(b *testing.B) {
			for range b.N {
				operatorComponents(b, 1000, workers)
			}
		})
	}
}

func operatorComponents(b *testing.B, k, workers int) {
	run := runComponents(b, k, []string{""}, "--concurrent", fmt.Sprint(workers))
	b.ReportMetric(run.ready.Seconds(), "s-to-ready")
	b.ReportMetric(run.rss[0], "operator-peak-RSS-MiB")
	b.Logf("\n| workers | time until all Ready | operator peak RSS |\n| %d | %s | %.0f MiB |", workers, run.ready.Round(100*time.Millisecond), run.rss[0])
}

// componentsRun is what runComponents measured: the time until all were
// Ready, and per operator process its peak RSS and watches of owned objects.
type componentsRun struct {
	ready   time.Duration
	rss     []float64
	watches []float64
}

// runComponents starts one operator process per shard key, creates k
// Components of appSource at once, spread over the keys, waits until all
// are Ready and stops the processes. It runs on the whole local cluster:
// the Deployment controller reports the Deployments available.
func runComponents(b *testing.B, k int, keys []string, extra ...string) componentsRun {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	e := cluster.Get(b)
	ns := newNamespace(b, e, "components")
	processes := make([]*operatorProcess, len(keys))
	metrics := make([]string, len(keys))
	for i, key := range keys {
		metrics[i] = freeAddress(b)
		args := append([]string{"--shard", key, "--metrics-bind-address", metrics[i], "--metrics-secure=false"}, extra...)
		processes[i] = startOperator(b, ctx, e, map[string]string{"app": appSource(b)}, []string{ns}, args...)
	}
	start := time.Now()
	for i := range k {
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("app%04d", i)}, Spec: v1alpha1.ComponentSpec{Source: "app"}}
		if key := keys[i%len(keys)]; key != "" {
			c.Labels = map[string]string{ns + ".wavekit.dev/" + component.LabelShard: key}
		}
		if err := e.Client.Create(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	waitAllReady(b, ctx, e, ns, k)
	run := componentsRun{ready: time.Since(start)}
	for i, p := range processes {
		run.watches = append(run.watches, scrapeCounter(b, metrics[i], "wavekit_api_requests_total", `verb="watch"`))
		run.rss = append(run.rss, p.stop(b))
	}
	return run
}

// waitAllReady polls, every half second so as not to load the API server
// being measured, until the k Components of ns are Ready.
func waitAllReady(b *testing.B, ctx context.Context, e *testcluster.Env, ns string, k int) {
	for {
		var list v1alpha1.ComponentList
		if err := e.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
			b.Fatalf("%d components not ready: %v", k, err)
		}
		ready := 0
		for _, c := range list.Items {
			if c.Status.State == component.StateReady {
				ready++
			}
		}
		if ready == k {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// appSource writes a source folder of Go templates: a Deployment,
// ServiceAccount, Service and ConfigMap named after the component.
//
// The Deployment has 0 replicas: the Deployment controller creates its
// ReplicaSet and reports it available, as it does for every Deployment, but
// no pod is made. What these benchmarks measure is the operator; 1000 or
// 2000 simulated pods would measure the ReplicaSet controller, the
// scheduler and kwok on the same cores instead (and not fit on the 110
// pods of each of the 3 fake Nodes).
func appSource(b *testing.B) string {
	const app = `apiVersion: v1
kind: ServiceAccount
metadata: {name: "{{ .Name }}", namespace: "{{ .Namespace }}"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: "{{ .Name }}", namespace: "{{ .Namespace }}"}
data: {app.conf: "name={{ .Name }}"}
---
apiVersion: v1
kind: Service
metadata: {name: "{{ .Name }}", namespace: "{{ .Namespace }}"}
spec:
  selector: {app: "{{ .Name }}"}
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: "{{ .Name }}", namespace: "{{ .Namespace }}"}
spec:
  replicas: 0
  selector: {matchLabels: {app: "{{ .Name }}"}}
  template:
    metadata: {labels: {app: "{{ .Name }}"}}
    spec:
      serviceAccountName: "{{ .Name }}"
      containers: [{name: app, image: registry.example/app:1.0, ports: [{containerPort: 8080}]}]
`
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(strings.TrimSpace(app)+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkShards has 2000 Components of 4 objects applied by one operator
// process, then by two shard processes of 1000 Components each, on the same
// API server, and reports the time until all are Ready and, per process,
// the peak RSS and the watches it opened on the objects it applies.
func BenchmarkShards(b *testing.B) {
	for _, shards := range []int{1, 2} {
		b.Run(fmt.Sprintf("components=2000/shards=%d", shards), func(b *testing.B) {
			for range b.N {
				shardedComponents(b, 2000, shards)
			}
		})
	}
}

func shardedComponents(b *testing.B, k, shards int) {
	keys := []string{""}
	if shards > 1 {
		keys = keys[:0]
		for i := range shards {
			keys = append(keys, fmt.Sprintf("s%d", i))
		}
	}
	run := runComponents(b, k, keys)
	b.ReportMetric(run.ready.Seconds(), "s-to-ready")
	b.ReportMetric(slices.Max(run.rss), "max-process-peak-RSS-MiB")
	table := "\n| shards | time until all Ready | process | peak RSS | watches of owned objects |"
	for i, key := range keys {
		table += fmt.Sprintf("\n| %d | %s | %q | %.0f MiB | %.0f |", shards, run.ready.Round(100*time.Millisecond), key, run.rss[i], run.watches[i])
	}
	b.Log(table)
}

// scrapeCounter reads a counter of the operator's metrics endpoint at
// address: the sum of the lines whose labels contain labels.
func scrapeCounter(b *testing.B, address, name, labels string) float64 {
	v, err := scrapeSum(address, name, labels)
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// sumSamples sums the samples of metric name whose labels contain labels
// in body, the text a metrics endpoint serves.
func sumSamples(body, name, labels string) float64 {
	sum := 0.0
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, name+"{") && strings.Contains(line, labels) {
			v, _ := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
			sum += v
		}
	}
	return sum
}
