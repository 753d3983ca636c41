package reliability_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Two components render the same object. The first owns it; the second says
// so and leaves it alone, also when it is deleted. Nothing flips.
var _ = Describe("ownership", func() {
	ctx := context.Background()
	shared := map[string]any{"name": "shared"}

	It("reports the conflict naming the first owner, never flips the owner and keeps the object when the second goes", func() {
		newNamespace(ctx, "owners")
		startOperator(ctx, map[string]string{"owned": "configmap"})
		first := newComponent("owners", "first", "owned", shared)
		Expect(env.Client.Create(ctx, first)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, first) }).Should(HavePrefix("True/Ready"))
		before := getConfigMap(ctx, "owners", "shared")
		Expect(before.Labels).To(HaveKeyWithValue(ownerLabel, componentOwnerID("owners", "first")))

		second := newComponent("owners", "second", "owned", merge(shared, map[string]any{"greeting": "mine"}))
		Expect(env.Client.Create(ctx, second)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, second) }).Should(Equal(
			"False/Error: ConfigMap owners/shared already exists and is managed by Component owners/first (rel.wavekit.dev/adoption-policy is if-unowned)"))

		unchanged := func() string { return sharedState(ctx) }
		Consistently(unchanged).WithTimeout(3 * time.Second).WithPolling(100 * time.Millisecond).Should(Equal(stateOf(before)))
		Expect(readyCondition(ctx, first)).To(HavePrefix("True/Ready"))

		Expect(env.Client.Delete(ctx, second)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, second) }).Should(Equal("gone"))
		Expect(sharedState(ctx)).To(Equal(stateOf(before)), "deleting the second component touched the first's object")
		Expect(readyCondition(ctx, first)).To(HavePrefix("True/Ready"))
	})
})

var ownerLabel = manifests.Key(inProcess, manifests.LabelOwnerID)

func sharedState(ctx context.Context) string {
	var cm corev1.ConfigMap
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "owners", Name: "shared"}, &cm); err != nil {
		return err.Error()
	}
	return stateOf(&cm)
}

// stateOf is what must not change: owner, content and resourceVersion.
func stateOf(cm *corev1.ConfigMap) string {
	return cm.Labels[ownerLabel] + " " + cm.Data["greeting"] + " rv=" + cm.ResourceVersion
}

func merge(a, b map[string]any) map[string]any {
	return manifests.MergeValues(a, b)
}
