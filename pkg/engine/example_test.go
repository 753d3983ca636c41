package engine_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// An Applier on a cluster applies a component's objects in waves: each call
// to Apply is one pass, which writes what changed and returns where it got
// to. Call it again (on a watch event, or after a while) until the Result is
// Done. This is what the component reconciler and `wavekit apply` do; it
// needs a cluster, so it is compiled but not run.
func ExampleApplier_Apply() {
	const operatorName = "greeter.example.com"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the target's informers

	cfg, err := config.GetConfig() // the kubeconfig, or the pod's service account
	if err != nil {
		fmt.Println(err)
		return
	}
	target, err := engine.NewCachedTarget(ctx, cfg, operatorName, clientgoscheme.Scheme, engine.DefaultCachedTargetOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	applier, err := engine.NewApplier(target.Target, engine.Options{Name: operatorName})
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
	for {
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
		time.Sleep(time.Second) // an operator waits for a watch event instead
	}
	fmt.Println(len(inventory), "objects applied and ready")
}
