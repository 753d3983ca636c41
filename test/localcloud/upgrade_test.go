package localcloud_test

import (
	"context"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// expectUpgradeWaitsForDelete upgrades vault's image: the Component becomes
// Ready again while the StatefulSet's pod waits for a delete, which its
// readiness says; once the pod is deleted, the new one is made and ready.
func expectUpgradeWaitsForDelete(ctx context.Context, c *v1alpha1.Component) {
	GinkgoHelper()
	changed := c.DeepCopy()
	changed.Spec.Values = jsonValues(map[string]any{"version": "1.21.0"})
	Expect(env.Client.Patch(ctx, changed, client.MergeFrom(c))).To(Succeed())
	eventually(func(g Gomega) {
		g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
		g.Expect(c.Status.ObservedGeneration).To(Equal(c.Generation))
		g.Expect(isReady(c)).To(BeTrue())
	}).Should(Succeed())
	Expect(readinessOf(ctx, "StatefulSet", c.Namespace, "vault")).To(Equal(
		"Current: 1 of 1 pods wait for a delete to be updated (updateStrategy OnDelete); ready: 1/1"))

	pod := &corev1.Pod{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: "vault-0"}, pod)).To(Succeed())
	Expect(env.Client.Delete(ctx, pod)).To(Succeed())
	eventually(func(g Gomega) {
		g.Expect(readinessOf(ctx, "StatefulSet", c.Namespace, "vault")).To(Equal("Current: StatefulSet is ready. Replicas: 1"))
		g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: "vault-0"}, pod)).To(Succeed())
		g.Expect(pod.Spec.Containers[0].Image).To(Equal("hashicorp/vault:1.21.0"))
		g.Expect(podState(pod, "")).To(Equal("Running/Ready"))
	}).Should(Succeed())
}

func mustParseRV(rv string) uint64 {
	GinkgoHelper()
	n, err := strconv.ParseUint(rv, 10, 64)
	Expect(err).NotTo(HaveOccurred())
	return n
}
