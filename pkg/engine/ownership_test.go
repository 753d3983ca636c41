package engine_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The default update, a server-side apply, owns what the component renders
// and nothing else: other writers' fields stay, and what it no longer
// renders goes, also where it once wrote with PUT.
var _ = Describe("field ownership under the default update", func() {
	var (
		ctx context.Context
		h   *harness
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("ownership")
	})

	It("migrates an object it wrote with PUT to apply ownership with one request, once, and removes what it stopped rendering", func() {
		h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"a": "1", "b": "1"}, "update-policy", "replace"))
		live := getConfigMap(ctx, ns, "cm")
		Expect(managers(live.ManagedFields)).To(ContainElement("test.wavekit.dev/Update"))
		waitForCachedVersion(ctx, h, live)

		h.counter.Reset()
		h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"a": "1"}))
		live = getConfigMap(ctx, ns, "cm")
		Expect(live.Data).To(Equal(map[string]string{"a": "1"}))
		Expect(managers(live.ManagedFields)).To(ConsistOf("test.wavekit.dev/Apply"))
		Expect(h.counter.Snapshot()).To(Equal(map[string]int{"patch configmaps": 1, "apply configmaps": 1}), h.counter.String())

		waitForCachedVersion(ctx, h, live)
		h.counter.Reset()
		h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"a": "2"}))
		Expect(h.counter.Snapshot()).To(Equal(map[string]int{"apply configmaps": 1}), "migrated once: %s", h.counter)
	})

	It("removes what it stopped rendering from an object an older release wrote with PUT, though its cache never saw that write", func() {
		older := configMap(ns, "cm", map[string]string{"a": "1", "dropped": "1"})
		Expect(env.Client.Create(ctx, older, client.FieldOwner("test.wavekit.dev"))).To(Succeed())

		h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"a": "1"}))
		live := getConfigMap(ctx, ns, "cm")
		Expect(live.Data).To(Equal(map[string]string{"a": "1"}))
		Expect(managers(live.ManagedFields)).NotTo(ContainElement("test.wavekit.dev/Update"))
	})

	It("keeps a restart's annotation and another writer's label through an upgrade, and owns neither", func() {
		// No controllers here: the Deployment never becomes ready, but each
		// pass writes it.
		_, err := h.apply(ctx, workload(ns, "web", 1))
		Expect(err).NotTo(HaveOccurred())
		restart := `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-25T07:00:00Z"}}}}}`
		Expect(env.Client.Patch(ctx, liveDeployment(ctx, ns, "web"), client.RawPatch(types.StrategicMergePatchType, []byte(restart)),
			client.FieldOwner("kubectl-rollout"))).To(Succeed())
		mesh := `{"metadata":{"labels":{"mesh.example/injected":"true"}}}`
		Expect(env.Client.Patch(ctx, liveDeployment(ctx, ns, "web"), client.RawPatch(types.MergePatchType, []byte(mesh)),
			client.FieldOwner("mesh-injector"))).To(Succeed())
		h.waitForCache(ctx)

		_, err = h.apply(ctx, workload(ns, "web", 2))
		Expect(err).NotTo(HaveOccurred())
		live := liveDeployment(ctx, ns, "web")
		Expect(*live.Spec.Replicas).To(BeEquivalentTo(2))
		Expect(live.Spec.Template.Annotations).To(HaveKeyWithValue("kubectl.kubernetes.io/restartedAt", "2026-11-25T07:00:00Z"))
		Expect(live.Labels).To(HaveKeyWithValue("mesh.example/injected", "true"))
		Expect(managers(live.ManagedFields)).To(ContainElements("kubectl-rollout/Update", "mesh-injector/Update"))
	})

	It("costs the same requests as replace to install, upgrade and do nothing", func() {
		costs := func(policy ...string) []string {
			ctx, ns, h := newSpec("cost")
			objects := func(value string) []any {
				var out []any
				for i := range 5 {
					out = append(out, configMap(ns, fmt.Sprintf("cm-%d", i), map[string]string{"v": value}, policy...))
				}
				return out
			}
			var out []string
			for _, value := range []string{"1", "2", "2"} {
				h.counter.Reset()
				h.applyUntilDone(ctx, objects(value)...)
				out = append(out, fmt.Sprintf("%d requests, %d writes", total(h.counter.Snapshot()), h.counter.Writes()))
				h.waitForCache(ctx)
			}
			return out
		}
		byDefault := costs()
		Expect(byDefault).To(Equal(costs("update-policy", "replace")), "install, upgrade, no-op")
		Expect(byDefault[2]).To(Equal("0 requests, 0 writes"))
	})
})

func liveDeployment(ctx context.Context, ns, name string) *appsv1.Deployment {
	GinkgoHelper()
	d := &appsv1.Deployment{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d)).To(Succeed())
	return d
}

func total(counts map[string]int) int {
	n := 0
	for _, v := range counts {
		n += v
	}
	return n
}
