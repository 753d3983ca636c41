package engine_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// An Applier applies a component's objects in waves: each call to Apply is
// one pass, which writes what changed and returns where it got to. Call it
// again (on a watch event, or after a while) until the Result is Done. This
// is what the component reconciler and `wavekit apply` do. On a cluster the
// target is engine.NewCachedTarget(ctx, cfg, scheme,
// engine.DefaultCachedTargetOptions(operatorName)), which reads the owner's objects from
// informers; here it is controller-runtime's in-memory fake client, so the
// example runs without an API server.
func ExampleApplier_Apply() {
	const operatorName = "greeter.example.com"
	ctx := context.Background()

	mapper, err := engine.OfflineRESTMapper() // the built-in kinds
	if err != nil {
		fmt.Println(err)
		return
	}
	cluster := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithRESTMapper(mapper).Build()
	applier, err := engine.NewApplier(engine.Target{Client: cluster, Live: cluster}, engine.Options{Name: operatorName})
	if err != nil {
		fmt.Println(err)
		return
	}

	// The owner is what the objects belong to: its ID is the owner label on
	// every object, and its namespace is given to objects without one.
	owner := engine.Owner{
		ID:          manifests.OwnerID("example.com", "Greeter", "demo", "hello"),
		Description: "Greeter demo/hello",
		Namespace:   "demo",
		Generation:  1,
	}
	// Wave 0 is the ServiceAccount; the ConfigMap's apply-order puts it in
	// wave 1, applied once everything in wave 0 is ready.
	objects := []client.Object{
		&corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: metav1.ObjectMeta{Name: "hello"},
		},
		&corev1.ConfigMap{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{
				Name:        "hello-config",
				Annotations: map[string]string{manifests.Key(operatorName, manifests.AnnotationApplyOrder): "1"},
			},
			Data: map[string]string{"message": "hi"},
		},
	}

	// The inventory is what the owner has applied so far; the applier saves
	// it (here in memory; the reconciler writes the component's status, the
	// CLI a Secret) before it creates objects new to it, so that a crash
	// never leaves an object nobody will delete.
	var inventory []manifests.InventoryItem
	save := func(_ context.Context, items []manifests.InventoryItem) error {
		inventory = items
		return nil
	}
	for range 10 { // an operator calls it again on a watch event instead
		res, err := applier.Apply(ctx, owner, objects, inventory, save)
		inventory = res.Inventory
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, action := range res.Actions {
			fmt.Printf("%v\n", action)
		}
		if res.Done {
			break
		}
		fmt.Println("waiting for", engine.Summarize(res.Waiting, 3))
	}
	fmt.Println(len(inventory), "objects applied and ready")
	// The namespace the objects need is created with them (namespace
	// policy create, the default) and recorded in the inventory.

	// Output:
	// Created Namespace demo
	// Created ServiceAccount demo/hello
	// Created ConfigMap demo/hello-config
	// 3 objects applied and ready
}
