package bench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// fleetSizes are the numbers of clusters BenchmarkFleetMemory measures.
var fleetSizes = []int{1, 10, 20}

// BenchmarkFleetMemory measures what each cluster of a ComponentSet costs
// the operator's memory: for each of fleetSizes, the component-operator
// binary on the hub and that many bare API servers, one ComponentSet over
// them all (one ConfigMap each), and, once every Component is Ready and
// the operator has settled, the median of its anonymous resident memory
// (RssAnon) over a second. The growth from the smallest to the largest
// fleet, divided by the clusters added, is what one cluster costs.
func BenchmarkFleetMemory(b *testing.B) {
	hub := env.Get(b)
	site := filepath.Join(testcluster.ModuleRoot(), "test", "fleet", "testdata", "site")
	for b.Loop() {
		anon := make([]float64, len(fleetSizes))
		for i, n := range fleetSizes {
			anon[i] = settledFleetMemory(b, hub, site, n)
			b.ReportMetric(anon[i], fmt.Sprintf("anon-MiB-%d-clusters", n))
		}
		first, last := 0, len(fleetSizes)-1
		b.ReportMetric((anon[last]-anon[first])/float64(fleetSizes[last]-fleetSizes[first]), "anon-MiB-per-cluster")
	}
}

// settledFleetMemory runs the operator over a set of n clusters and
// returns its settled anonymous resident memory in MiB.
func settledFleetMemory(b *testing.B, hub *testcluster.Env, site string, n int) float64 {
	clusters, err := testcluster.StartClusters(n)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		for _, c := range clusters {
			_ = c.Stop()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ns := newNamespace(b, hub, "fleetmem")
	op := startOperator(b, ctx, hub, map[string]string{"site": site}, []string{ns})
	defer op.stop(b)
	for i, c := range clusters {
		secret, err := c.KubeconfigSecret(ns, fmt.Sprintf("c%02d", i), map[string]string{ns + ".wavekit.dev/cluster": "true"})
		if err != nil {
			b.Fatal(err)
		}
		if err := hub.Client.Create(ctx, secret); err != nil {
			b.Fatal(err)
		}
	}
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "site"}, Spec: v1alpha1.ComponentSetSpec{
		Template:  v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site", Values: siteValues("v1")}},
		Placement: &v1alpha1.Placement{},
	}}
	if err := hub.Client.Create(ctx, set); err != nil {
		b.Fatal(err)
	}
	waitComponentsReady(b, ctx, hub.Client, ns, n)
	return settledAnonMiB(op.cmd.Process.Pid)
}

// settledAnonMiB waits for the last status writes and events of process
// pid to settle and returns the median of its anonymous resident memory
// (RssAnon) over a second, in MiB.
func settledAnonMiB(pid int) float64 {
	time.Sleep(5 * time.Second)
	samples := make([]float64, 0, 20)
	for range 20 {
		samples = append(samples, sampleProcess(pid).anonKiB/1024)
		time.Sleep(50 * time.Millisecond)
	}
	slices.Sort(samples)
	return samples[len(samples)/2]
}
