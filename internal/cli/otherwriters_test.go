package cli_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// What other writers set on an object the CLI applies stays: the update is
// a server-side apply that owns only what the chart renders.
var _ = Describe("other writers", func() {
	It("keeps kubectl rollout restart and another writer's label through an upgrade; diff shows neither", func() {
		ctx := context.Background()
		ns := newNamespace()
		succeeds("apply", "shop", "testdata/restart", "-n", ns, "--wait", "--timeout", "2m")
		Expect(deployment(ns, "shop").Generation).To(BeEquivalentTo(1), "hostNetwork: false and minReadySeconds: 0 are not drift")

		config, counter := countingKubeconfig()
		r := wavekitWith(config, "apply", "shop", "testdata/restart", "-n", ns)
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(counter.Writes()).To(BeZero(), "a second apply of the same chart: %s", counter)

		restartedAt := time.Now().UTC().Format(time.RFC3339)
		restart := `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"` + restartedAt + `"}}}}}`
		Expect(env.Client.Patch(ctx, deployment(ns, "shop"), client.RawPatch(types.StrategicMergePatchType, []byte(restart)),
			client.FieldOwner("kubectl-rollout"))).To(Succeed())
		mesh := `{"metadata":{"labels":{"mesh.example/injected":"true"}}}`
		Expect(env.Client.Patch(ctx, deployment(ns, "shop"), client.RawPatch(types.MergePatchType, []byte(mesh)),
			client.FieldOwner("mesh-injector"))).To(Succeed())
		Eventually(func() int { return len(replicaSetsOf(ns)) }).WithTimeout(time.Minute).Should(Equal(2), "the restart rolls out")
		Eventually(func() string { return deployment(ns, "shop").Annotations["deployment.kubernetes.io/revision"] }).
			WithTimeout(time.Minute).Should(Equal("2"))

		Expect(succeeds("diff", "shop", "testdata/restart", "-n", ns)).To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 1 unchanged\n"))

		succeeds("apply", "shop", "testdata/restart", "-n", ns, "--set", "replicas=2", "--wait", "--timeout", "2m")
		upgraded := deployment(ns, "shop")
		Expect(*upgraded.Spec.Replicas).To(BeEquivalentTo(2))
		Expect(upgraded.Spec.Template.Annotations).To(HaveKeyWithValue("kubectl.kubernetes.io/restartedAt", restartedAt))
		Expect(upgraded.Labels).To(HaveKeyWithValue("mesh.example/injected", "true"))
		Expect(upgraded.Annotations).To(HaveKeyWithValue("deployment.kubernetes.io/revision", "2"), "no rollout back")
		Expect(replicaSetsOf(ns)).To(HaveLen(2), "no new ReplicaSet")
		Expect(succeeds("diff", "shop", "testdata/restart", "-n", ns, "--set", "replicas=2")).
			To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 1 unchanged\n"))
	})

	It("removes a field a person added by hand at the object's next write, and not before", func() {
		ctx := context.Background()
		ns := newNamespace()
		succeeds("apply", "demo", "testdata/web", "-n", ns)
		cm := configMap(ns, "demo-config")
		cm.Data["added"] = "by hand"
		Expect(env.Client.Update(ctx, cm, client.FieldOwner("kubectl-edit"))).To(Succeed())

		succeeds("apply", "demo", "testdata/web", "-n", ns)
		Expect(configMap(ns, "demo-config").Data).To(HaveKeyWithValue("added", "by hand"), "nothing rendered changed: no write")

		succeeds("apply", "demo", "testdata/web", "-n", ns, "--set", "greeting=hi")
		Expect(configMap(ns, "demo-config").Data).NotTo(HaveKey("added"), "kubectl edit's fields are taken over and dropped")
	})
})

func deployment(namespace, name string) *appsv1.Deployment {
	GinkgoHelper()
	d := &appsv1.Deployment{}
	Expect(env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, d)).To(Succeed())
	return d
}

func replicaSetsOf(namespace string) []appsv1.ReplicaSet {
	GinkgoHelper()
	var list appsv1.ReplicaSetList
	Expect(env.Client.List(context.Background(), &list, client.InNamespace(namespace))).To(Succeed())
	return list.Items
}
