package engine_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

const shardLabel = "test.wavekit.dev/shard"

var _ = Describe("the applier of a shard", func() {
	var (
		ctx context.Context
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, _ = newSpec("shard")
	})

	It("labels what it writes and caches only objects with its label", func() {
		blue := newShardHarness(ctx, "shard", "blue")
		blue.applyUntilDone(ctx, configMap(ns, "cm", nil))
		Expect(getConfigMap(ctx, ns, "cm").Labels).To(HaveKeyWithValue(shardLabel, "blue"))
		green := newShardHarness(ctx, "shard", "green")
		// Once green's cache has started, it does not hold blue's object.
		Eventually(func() error {
			return green.target.Cache.Get(ctx, client.ObjectKey{Namespace: ns, Name: "cm"}, &corev1.ConfigMap{})
		}).Should(Satisfy(apierrors.IsNotFound), "green caches blue's object")
	})

	It("takes over another shard's objects without re-creating them, and deletes what its cache does not hold yet", func() {
		blue := newShardHarness(ctx, "shard", "blue")
		blue.applyUntilDone(ctx, configMap(ns, "taken", nil), configMap(ns, "deleted", nil))
		uid := getConfigMap(ctx, ns, "taken").UID

		By("green, the component's new shard, applies one object and deletes the other")
		green := newShardHarness(ctx, "shard", "green")
		green.inventory = blue.inventory
		green.applyUntilDone(ctx, configMap(ns, "taken", nil))
		taken := getConfigMap(ctx, ns, "taken")
		Expect(taken.UID).To(Equal(uid))
		Expect(taken.Labels).To(HaveKeyWithValue(shardLabel, "green"))
		Expect(getConfigMap(ctx, ns, "deleted")).To(BeNil(), "pruned although it carried blue's label")

		By("deleting the component right after another move: the object still has green's label")
		blue = newShardHarness(ctx, "shard", "blue")
		blue.inventory = green.inventory
		blue.deleteUntilDone(ctx)
		Expect(getConfigMap(ctx, ns, "taken")).To(BeNil(), "left behind: a cache miss is not gone")
	})
})

// newShardHarness is newHarness for the shard key of operator
// test.wavekit.dev: its writes carry the shard label and its cache holds
// only objects with it.
func newShardHarness(ctx context.Context, name, key string) *harness {
	labels := map[string]string{shardLabel: key}
	return newHarnessWith(ctx, name, engine.Options{Labels: labels}, engine.CachedTargetOptions{})
}
