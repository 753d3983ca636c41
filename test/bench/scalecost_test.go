package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// scaleCluster is the whole local cluster of BenchmarkScaleCost, with room
// for the pods of 1 000 Deployments of one replica (12 Nodes of 110 pods).
var scaleCluster = &testcluster.Once{Options: testcluster.Options{Scheme: scheme(), Controllers: true, Nodes: 12}}

// scaleCase is one measurement of BenchmarkScaleCost: how many Components,
// over how many shard replicas, and whether each also deploys a Deployment
// of one pod.
type scaleCase struct {
	components, shards int
	deployment         bool
}

func (c scaleCase) String() string {
	chart := "small"
	if c.deployment {
		chart = "small+deployment"
	}
	return fmt.Sprintf("components=%d/chart=%s/shards=%d", c.components, chart, c.shards)
}

// BenchmarkScaleCost is `make bench-scale` (not part of make bench: it
// takes about an hour). For each case it runs the component-operator
// binary, under its chart's RBAC, on the whole local cluster and follows R
// Components of a small chart (a ConfigMap, a Secret and a ServiceAccount;
// at R = 1 000 also with a Deployment of one pod) through what an operator
// lives through: the install until all are Ready, the settled memory, a
// restart with all Ready (a change made then, the catch-up's writes and
// reads), a minute of idling, a resync of all (every Component's requeue
// at once, with changes made during it) and the deletion of all. It
// counts every request each replica sends through a counting proxy, reads
// its CPU and memory from /proc, and appends the figures to
// WAVEKIT_SCALE_OUT (JSON) for docs/benchmarks.md and its plot.
//
// WAVEKIT_SCALE_SIZES (default 1000,3000,10000) are the Rs;
// WAVEKIT_SCALE_SHARDS (default 2,4; 1 for none) the shard replicas of
// the largest, and WAVEKIT_SCALE_SHARDED_ONLY=1 leaves out the cases of
// one replica (R = 30 000 over 4 shards alone: SIZES=30000 SHARDS=4);
// a sharded case also moves min(1 000, R/10) Components from one shard to
// another, after the resync;
// WAVEKIT_SCALE_PROFILE=<dir> saves each replica's heap profile when
// idle and a CPU profile of the resync; WAVEKIT_SCALE_OPERATOR_ARGS adds
// flags to the operator's (a case of its own in the results).
func BenchmarkScaleCost(b *testing.B) {
	if os.Getenv("WAVEKIT_SCALE") == "" {
		b.Skip("make bench-scale runs it (WAVEKIT_SCALE=1)")
	}
	for _, c := range scaleCases() {
		b.Run(c.String(), func(b *testing.B) {
			for range b.N {
				run := newScaleRun(b, c)
				run.measure()
				run.report()
			}
		})
	}
}

// scaleCases are the cases of WAVEKIT_SCALE_SIZES and WAVEKIT_SCALE_SHARDS.
func scaleCases() []scaleCase {
	sizes := envInts("WAVEKIT_SCALE_SIZES", []int{1000, 3000, 10000})
	var cases []scaleCase
	for _, r := range sizes {
		if os.Getenv("WAVEKIT_SCALE_SHARDED_ONLY") != "" {
			continue // the sharded cases alone
		}
		cases = append(cases, scaleCase{components: r, shards: 1})
		if r == 1000 {
			cases = append(cases, scaleCase{components: r, shards: 1, deployment: true})
		}
	}
	largest := sizes[len(sizes)-1]
	for _, shards := range envInts("WAVEKIT_SCALE_SHARDS", []int{2, 4}) {
		if shards < 2 {
			continue
		}
		cases = append(cases, scaleCase{components: largest, shards: shards})
	}
	return cases
}

// envInts is the comma-separated integers of the environment variable
// name, or otherwise when it is unset or empty.
func envInts(name string, otherwise []int) []int {
	value := os.Getenv(name)
	if value == "" {
		return otherwise
	}
	var out []int
	for _, field := range strings.Split(value, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(field)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// requeueInterval is the Components' spec.intervals.requeue: long enough
// that the resync which follows a restart's catch-up starts after the
// minute of idling, short enough to wait for (WAVEKIT_SCALE_REQUEUE, a Go
// duration, overrides it).
func requeueInterval(components int) time.Duration {
	if d, err := time.ParseDuration(os.Getenv("WAVEKIT_SCALE_REQUEUE")); err == nil {
		return d
	}
	if components > 3000 {
		return 4 * time.Minute
	}
	return 3 * time.Minute
}

// smallChart writes the source of BenchmarkScaleCost's Components, Go
// templates: a ConfigMap (whose data carries the value "version"), a
// Secret and a ServiceAccount, and with deployment a Deployment of one
// pod, which kwok runs.
func smallChart(b *testing.B, deployment bool) string {
	const small = `apiVersion: v1
kind: ConfigMap
metadata: {name: "{{ .Name }}", namespace: "{{ .Namespace }}"}
data: {app.conf: "name={{ .Name }} version={{ .Values.version }}"}
---
apiVersion: v1
kind: Secret
metadata: {name: "{{ .Name }}", namespace: "{{ .Namespace }}"}
stringData: {token: "{{ .Name }}-token"}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: "{{ .Name }}", namespace: "{{ .Namespace }}"}
`
	const workload = `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: "{{ .Name }}", namespace: "{{ .Namespace }}"}
spec:
  replicas: 1
  selector: {matchLabels: {app: "{{ .Name }}"}}
  template:
    metadata: {labels: {app: "{{ .Name }}"}}
    spec:
      serviceAccountName: "{{ .Name }}"
      containers: [{name: app, image: registry.example/app:1.0}]
`
	manifest := small
	if deployment {
		manifest += workload
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "small.yaml"), []byte(manifest), 0o600); err != nil {
		b.Fatal(err)
	}
	return dir
}
