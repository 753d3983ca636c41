package bench_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// rawSSA8 applies n ConfigMaps server-side (PATCH
// application/apply-patch+yaml, with force) in a namespace of their own,
// with a bare client, 8 workers and the field manager the operator uses,
// then deletes them the same way, and returns the time of the apply. It is
// the floor of a server-side apply: what the API server's own work costs,
// apart from the operator's.
func rawSSA8(b *testing.B, ctx context.Context, n int, fieldManager string, meter cpuMeter) (time.Duration, cpuSample) {
	c := bareClient(b)
	ns := newNamespace(b, env.Get(b), "rawssa8")
	objects := make([]client.Object, n)
	for i := range objects {
		objects[i] = &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": ns, "name": configMapName(i)},
			"data":     map[string]any{"value": "v1"},
		}}
	}
	before := meter.sample()
	apply := inWorkers(b, 8, objects, func(o client.Object) error {
		return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.(*unstructured.Unstructured)), client.FieldOwner(fieldManager), client.ForceOwnership)
	})
	cpu := meter.sample().minus(before)
	inWorkers(b, 8, objects, func(o client.Object) error { return c.Delete(ctx, o) })
	return apply, cpu
}

// bareClient is a client of the control plane without client-side rate
// limit, as the operator has none.
func bareClient(b *testing.B) client.Client {
	cfg := rest.CopyConfig(env.Get(b).Config)
	cfg.QPS = -1
	c, err := client.New(cfg, client.Options{Scheme: scheme()})
	if err != nil {
		b.Fatal(err)
	}
	return c
}
