package engine_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// benchEnv is the control plane of the benchmarks (the Ginkgo suite has its own).
var benchEnv = &testcluster.Once{}

// TestMain stops the control plane that benchmarks start.
func TestMain(m *testing.M) {
	code := m.Run()
	_ = benchEnv.Stop()
	os.Exit(code)
}

// BenchmarkApplier applies N ConfigMaps in W waves, runs a pass that finds
// nothing to change, changes every object, and deletes them all. It reports
// the wall time of each phase and the API requests each one sent.
func BenchmarkApplier(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, waves := range []int{1, 10} {
			b.Run(fmt.Sprintf("objects=%d/waves=%d", n, waves), func(b *testing.B) {
				benchmarkApplier(b, n, waves)
			})
		}
	}
}

func benchmarkApplier(b *testing.B, n, waves int) {
	e := benchEnv.Get(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < b.N; i++ {
		ns := fmt.Sprintf("bench-%d-%d-%d-%d", n, waves, i, time.Now().UnixNano())
		if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			b.Fatal(err)
		}
		counter := apicount.New()
		target, err := engine.NewCachedTarget(ctx, counter.Wrap(e.Config), e.Scheme, engine.DefaultCachedTargetOptions(prefix))
		if err != nil {
			b.Fatal(err)
		}
		applier, err := target.NewApplier()
		if err != nil {
			b.Fatal(err)
		}
		r := &benchRun{b: b, applier: applier, counter: counter,
			owner: engine.Owner{ID: manifests.OwnerID("", "Bench", ns, "b"), Description: "Bench " + ns, Namespace: ns, Generation: 1}}
		r.phase("apply", func() { r.applyUntilDone(ctx, benchObjects(ns, n, waves, "1")) })
		r.phase("noop", func() { r.applyUntilDone(ctx, benchObjects(ns, n, waves, "1")) })
		r.phase("change", func() { r.applyUntilDone(ctx, benchObjects(ns, n, waves, "2")) })
		r.phase("delete", func() { r.deleteUntilDone(ctx) })
	}
}

func benchObjects(ns string, n, waves int, value string) []client.Object {
	objects := make([]client.Object, 0, n)
	for i := range n {
		objects = append(objects, configMap(ns, fmt.Sprintf("cm-%04d", i), map[string]string{"value": value}, "apply-order", fmt.Sprint(i%waves)))
	}
	return objects
}

type benchRun struct {
	b         *testing.B
	applier   *engine.Applier
	counter   *apicount.Counter
	owner     engine.Owner
	inventory []manifests.InventoryItem
}

// phase runs fn and reports its time, writes and dependent reads per op.
func (r *benchRun) phase(name string, fn func()) {
	r.counter.Reset()
	start := time.Now()
	fn()
	elapsed := time.Since(start)
	writes := r.counter.Writes()
	reads := r.counter.Count("get") + r.counter.Count("list")
	r.b.ReportMetric(float64(elapsed.Milliseconds())/float64(r.b.N), name+"-ms/op")
	r.b.ReportMetric(float64(writes)/float64(r.b.N), name+"-writes/op")
	r.b.ReportMetric(float64(reads)/float64(r.b.N), name+"-reads/op")
}

func (r *benchRun) save(_ context.Context, items []manifests.InventoryItem) error {
	r.inventory = items
	return nil
}

func (r *benchRun) applyUntilDone(ctx context.Context, objects []client.Object) {
	for range 1000 {
		res, err := r.applier.Apply(ctx, r.owner, objects, r.inventory, r.save)
		r.inventory = res.Inventory
		if err != nil {
			r.b.Fatal(err)
		}
		if res.Done {
			return
		}
		time.Sleep(10 * time.Millisecond) // waiting for the cache to see deletions
	}
	r.b.Fatal("apply did not finish")
}

func (r *benchRun) deleteUntilDone(ctx context.Context) {
	for range 1000 {
		res, err := r.applier.Delete(ctx, r.owner, r.inventory, engine.DeleteOptions{})
		r.inventory = res.Inventory
		if err != nil {
			r.b.Fatal(err)
		}
		if res.Done {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.b.Fatal("delete did not finish")
}
