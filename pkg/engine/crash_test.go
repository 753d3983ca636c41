package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/pkg/apirequest"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// crashAfter lets the first n write requests through and fails every later
// one, as if the process had died at that point.
type crashAfter struct {
	next   http.RoundTripper
	writes atomic.Int64
	n      int64
}

func (c *crashAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	if apicount.IsWrite(apirequest.Verb(req)) && c.writes.Add(1) > c.n {
		return nil, errors.New("simulated crash")
	}
	return c.next.RoundTrip(req)
}

func crashingConfig(n int64) *rest.Config {
	cfg := rest.CopyConfig(env.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &crashAfter{next: rt, n: n} })
	return cfg
}

var _ = Describe("crash safety", func() {
	ctx := context.Background()

	component := func(ns string) []any {
		var objects []any
		for wave := range 3 {
			for i := range 3 {
				objects = append(objects, configMap(ns, fmt.Sprintf("w%d-%d", wave, i), map[string]string{"i": "x"}, "apply-order", fmt.Sprint(wave)))
			}
		}
		return append(objects, configMap(ns, "job", nil, "purge-order", "1"), configMap(ns+"-new", "elsewhere", nil))
	}

	It("leaves no untracked object wherever the apply stops, and the next run finishes it", func() {
		for crashAt := int64(0); crashAt <= 14; crashAt++ {
			ns := newNamespace(ctx)
			owner := engine.Owner{ID: manifests.OwnerID("", "Crash", ns, "c"), Description: "Crash " + ns, Namespace: ns, Generation: 1}
			var saved []manifests.InventoryItem
			save := func(_ context.Context, items []manifests.InventoryItem) error { saved = items; return nil }

			crashing := newApplierFor(ctx, crashingConfig(crashAt))
			_, _ = crashing.Apply(ctx, owner, toObjects(component(ns)), saved, save)
			expectEveryLabelledObjectTracked(ctx, []string{ns, ns + "-new"}, owner.ID, saved)

			fresh := newApplierFor(ctx, env.Config)
			inventory := saved
			Eventually(func() (bool, error) {
				res, err := fresh.Apply(ctx, owner, toObjects(component(ns)), inventory, save)
				inventory = res.Inventory
				return res.Done, err
			}).Should(BeTrue(), "crash after %d writes", crashAt)
			Expect(inventory).To(HaveLen(12)) // 11 ConfigMaps and the namespace created for "elsewhere"
			for _, name := range []string{"w0-0", "w1-2", "w2-1"} {
				Expect(getConfigMap(ctx, ns, name)).NotTo(BeNil())
			}
			Expect(getConfigMap(ctx, ns, "job")).To(BeNil())
			Expect(getConfigMap(ctx, ns+"-new", "elsewhere")).NotTo(BeNil())
		}
	})
})

func newApplierFor(ctx context.Context, cfg *rest.Config) *engine.Applier {
	ctx, cancel := context.WithCancel(ctx)
	DeferCleanup(cancel)
	target, err := engine.NewCachedTarget(ctx, cfg, env.Scheme, engine.DefaultCachedTargetOptions(prefix))
	Expect(err).NotTo(HaveOccurred())
	applier, err := target.NewApplier()
	Expect(err).NotTo(HaveOccurred())
	return applier
}

// expectEveryLabelledObjectTracked lists the ConfigMaps with the owner label
// and checks each is in the inventory.
func expectEveryLabelledObjectTracked(ctx context.Context, namespaces []string, ownerID string, inventory []manifests.InventoryItem) {
	tracked := map[string]bool{}
	for _, item := range inventory {
		tracked[item.Namespace+"/"+item.Name] = true
	}
	for _, ns := range namespaces {
		var list corev1.ConfigMapList
		Expect(env.Client.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels{prefix + "/owner-id": ownerID})).To(Succeed())
		for _, cm := range list.Items {
			Expect(tracked).To(HaveKey(cm.Namespace+"/"+cm.Name), "untracked object after crash")
		}
	}
}
