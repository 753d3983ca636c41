package component_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// BenchmarkStatusWrites installs, upgrades (a change of every object and
// one more object a wave) and deletes one Component of ConfigMaps in three
// waves, and reports each phase's status writes, Reconciles and the most
// status writes one Reconcile made.
func BenchmarkStatusWrites(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchmarkStatusWrites(b)
	}
}

func benchmarkStatusWrites(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := benchEnv.Get(b)
	ns := benchNamespace(b, ctx, e)
	counter := apicount.New()
	var writes *reconcileWrites
	startBenchOperator(b, ctx, e, counter, ns, versionedWaves(), component.ReconcilerOptions{}, func(r *component.Reconciler[*v1alpha1.Component]) {
		writes = countWritesPerReconcile(r)
	})
	writes.use(counter)
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "waves"}, Spec: v1alpha1.ComponentSpec{Source: "bench"}}
	setBenchVersion(c, 1)
	if err := e.Client.Create(ctx, c); err != nil {
		b.Fatal(err)
	}
	waitAllReady(b, ctx, e.Client, ns, 1)
	report(b, "install", writes.take())

	if err := e.Client.Get(ctx, client.ObjectKeyFromObject(c), c); err != nil {
		b.Fatal(err)
	}
	setBenchVersion(c, 2)
	if err := e.Client.Update(ctx, c); err != nil {
		b.Fatal(err)
	}
	waitObserved(b, ctx, e.Client, c)
	report(b, "upgrade", writes.take())

	if err := e.Client.Delete(ctx, c); err != nil {
		b.Fatal(err)
	}
	waitGone(b, ctx, e.Client, c)
	report(b, "delete", writes.take())
}

// versionedWaves renders, for spec.values.version v, 3+v ConfigMaps in
// each of three waves, their data the version.
func versionedWaves() manifests.Generator {
	return manifests.GeneratorFunc(func(_ context.Context, namespace, name string, p manifests.Parameters) ([]client.Object, error) {
		version, _ := p.ToUnstructured()["version"].(float64)
		var out []client.Object
		for wave := range 3 {
			for i := range 3 + int(version) {
				cm := benchObject("v1", "ConfigMap", namespace, fmt.Sprintf("%s-%d-%d", name, wave, i))
				cm.Object["data"] = map[string]any{"version": strconv.Itoa(int(version))}
				cm.SetAnnotations(map[string]string{benchOperator(namespace) + "/apply-order": strconv.Itoa(wave)})
				out = append(out, cm)
			}
		}
		return out, nil
	})
}

func setBenchVersion(c *v1alpha1.Component, version int) {
	c.Spec.Values = &apiextensionsv1.JSON{Raw: []byte(fmt.Sprintf(`{"version":%d}`, version))}
}

func report(b *testing.B, phase string, writes phaseWrites) {
	b.ReportMetric(float64(writes.total()), phase+"-status-writes")
	b.ReportMetric(float64(len(writes)), phase+"-reconciles")
	b.ReportMetric(float64(writes.most()), phase+"-most-per-reconcile")
}

// waitObserved waits until c is Ready at its generation.
func waitObserved(b *testing.B, ctx context.Context, c client.Client, obj *v1alpha1.Component) {
	deadline := time.Now().Add(benchReadyTimeout)
	for {
		var got v1alpha1.Component
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), &got); err != nil {
			b.Fatal(err)
		}
		if cond := got.Status.ReadyCondition(); cond != nil && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == got.Generation {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s is not Ready at generation %d after %s: %s", obj.Name, got.Generation, benchReadyTimeout, conditionSummary(&got))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitGone waits until c is gone.
func waitGone(b *testing.B, ctx context.Context, c client.Client, obj *v1alpha1.Component) {
	deadline := time.Now().Add(benchReadyTimeout)
	for {
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), &v1alpha1.Component{})
		if client.IgnoreNotFound(err) != nil {
			b.Fatal(err)
		}
		if err != nil {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s is not gone after %s", obj.Name, benchReadyTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
