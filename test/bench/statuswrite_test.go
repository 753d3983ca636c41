package bench_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// BenchmarkStatusWrite measures what one status write of a Component costs
// the API server by the size of its inventory (issue 90): an install
// writes the inventory before its first create and again when the
// Component is Ready, so this is the part of an install's floor that the
// inventory contract sets. Each size writes the status writesPerSize times,
// each with a new digest and time in every item, as the operator's
// update does (a PUT of the status subresource), and reports the wall
// time, this process's CPU and kube-apiserver's CPU a write.
// WAVEKIT_BENCH_STATUS_ITEMS lists the sizes (default 0, 500, 2000);
// WAVEKIT_BENCH_SERVER_CPU=<file> saves a CPU profile of kube-apiserver
// over the writes of the largest size.
func BenchmarkStatusWrite(b *testing.B) {
	sizes := envInts("WAVEKIT_BENCH_STATUS_ITEMS", []int{0, 500, 2000})
	for i, n := range sizes {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			profile := ""
			if i == len(sizes)-1 {
				profile = os.Getenv("WAVEKIT_BENCH_SERVER_CPU")
			}
			for range b.N {
				statusWrites(b, n, profile)
			}
		})
	}
}

// writesPerSize is how many times BenchmarkStatusWrite writes each size.
const writesPerSize = 20

func statusWrites(b *testing.B, n int, profile string) {
	e := env.Get(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ns := newNamespace(b, e, "status")
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inventory"}, Spec: v1alpha1.ComponentSpec{Source: "none"}}
	if err := e.Client.Create(ctx, c); err != nil {
		b.Fatal(err)
	}
	writes := writesPerSize
	var saved func()
	if profile != "" {
		writes *= 5 // the writes outlast the profile's seconds
		saved = profileServerCPU(b, ctx, e.Config, profile)
	}
	meter := cpuMeter{server: serverPID(b, e.Config)}
	before, start := meter.sample(), time.Now()
	for round := range writes {
		c.Status.Inventory = inventoryOf(ns, n, round)
		c.Status.ObservedGeneration = int64(round)
		if err := e.Client.Status().Update(ctx, c, client.FieldOwner("bench.wavekit.dev")); err != nil {
			b.Fatal(err)
		}
	}
	wall, cpu := time.Since(start)/time.Duration(writes), meter.sample().minus(before)
	if saved != nil {
		saved()
	}
	perWrite := func(d time.Duration) time.Duration { return d / time.Duration(writes) }
	b.ReportMetric(float64(wall.Microseconds())/1000, "ms/write")
	b.ReportMetric(float64(perWrite(cpu.self).Microseconds())/1000, "client-cpu-ms/write")
	b.ReportMetric(float64(perWrite(cpu.server).Microseconds())/1000, "server-cpu-ms/write")
	b.Logf("\n| inventory items | a status write | client CPU | kube-apiserver CPU |\n| %d | %s | %s | %s |",
		n, wall.Round(100*time.Microsecond), perWrite(cpu.self).Round(100*time.Microsecond), perWrite(cpu.server).Round(100*time.Microsecond))
}

// inventoryOf is an inventory of n ConfigMaps of ns as an install records
// them, with the digests and times of round.
func inventoryOf(ns string, n, round int) []manifests.InventoryItem {
	items := make([]manifests.InventoryItem, n)
	for i := range items {
		items[i] = manifests.InventoryItem{Version: "v1", Kind: "ConfigMap", Namespace: ns, Name: configMapName(i),
			Digest: fmt.Sprintf("%032x", i*1000+round), Phase: manifests.PhaseReady, LastAppliedAt: int64(1_700_000_000 + round)}
	}
	return items
}

// profileServerCPU starts a CPU profile of the API server of cfg (its
// /debug/pprof, which an admin may read) and returns a function that
// waits for it and writes it to file.
func profileServerCPU(b *testing.B, ctx context.Context, cfg *rest.Config, file string) func() {
	raw := rest.CopyConfig(cfg)
	raw.GroupVersion, raw.APIPath = &schema.GroupVersion{}, "/"
	raw.NegotiatedSerializer = kubescheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(raw)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		data, err := rc.Get().AbsPath("/debug/pprof/profile").Param("seconds", "5").DoRaw(ctx)
		if err == nil {
			err = os.WriteFile(file, data, 0o644)
		}
		done <- err
	}()
	return func() {
		if err := <-done; err != nil {
			b.Fatalf("profiling kube-apiserver: %v", err)
		}
	}
}
