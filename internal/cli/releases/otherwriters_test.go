package releases_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

// What other writers set on an object the CLI applies stays: the update is
// a server-side apply that owns only what the chart renders.
var _ = Describe("other writers", func() {
	It("keeps kubectl rollout restart and another writer's label through an upgrade; diff shows neither", func() {
		ctx := context.Background()
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "shop", "../testdata/restart", "-n", ns, "--wait", "--timeout", "2m")
		Expect(deployment(ns, "shop").Generation).To(BeEquivalentTo(1), "hostNetwork: false and minReadySeconds: 0 are not drift")

		config, counter := clitest.CountingKubeconfig()
		r := clitest.WavekitWith(config, "apply", "shop", "../testdata/restart", "-n", ns)
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(counter.Writes()).To(BeZero(), "a second apply of the same chart: %s", counter)

		restartedAt := time.Now().UTC().Format(time.RFC3339)
		restart := `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"` + restartedAt + `"}}}}}`
		Expect(clitest.Env.Client.Patch(ctx, deployment(ns, "shop"), client.RawPatch(types.StrategicMergePatchType, []byte(restart)),
			client.FieldOwner("kubectl-rollout"))).To(Succeed())
		mesh := `{"metadata":{"labels":{"mesh.example/injected":"true"}}}`
		Expect(clitest.Env.Client.Patch(ctx, deployment(ns, "shop"), client.RawPatch(types.MergePatchType, []byte(mesh)),
			client.FieldOwner("mesh-injector"))).To(Succeed())
		Eventually(func() int { return len(replicaSetsOf(ns)) }).WithTimeout(time.Minute).Should(Equal(2), "the restart rolls out")
		Eventually(func() string { return deployment(ns, "shop").Annotations["deployment.kubernetes.io/revision"] }).
			WithTimeout(time.Minute).Should(Equal("2"))

		Expect(clitest.Succeeds("diff", "shop", "../testdata/restart", "-n", ns)).To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 1 unchanged\n"))
		clitest.Succeeds("apply", "shop", "../testdata/restart", "-n", ns, "--set", "replicas=2", "--wait", "--timeout", "2m")
		upgraded := deployment(ns, "shop")
		Expect(*upgraded.Spec.Replicas).To(BeEquivalentTo(2))
		Expect(upgraded.Spec.Template.Annotations).To(HaveKeyWithValue("kubectl.kubernetes.io/restartedAt", restartedAt))
		Expect(upgraded.Labels).To(HaveKeyWithValue("mesh.example/injected", "true"))
		Expect(upgraded.Annotations).To(HaveKeyWithValue("deployment.kubernetes.io/revision", "2"), "no rollout back")
		Expect(replicaSetsOf(ns)).To(HaveLen(2), "no new ReplicaSet")
		Expect(clitest.Succeeds("diff", "shop", "../testdata/restart", "-n", ns, "--set", "replicas=2")).
			To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 1 unchanged\n"))
	})

	It("removes a field a person added by hand at the object's next write, and not before", func() {
		ctx := context.Background()
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns)
		cm := clitest.ConfigMap(ns, "demo-config")
		cm.Data["added"] = "by hand"
		Expect(clitest.Env.Client.Update(ctx, cm, client.FieldOwner("kubectl-edit"))).To(Succeed())
		clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns)
		Expect(clitest.ConfigMap(ns, "demo-config").Data).To(HaveKeyWithValue("added", "by hand"), "nothing rendered changed: no write")
		clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns, "--set", "greeting=hi")
		Expect(clitest.ConfigMap(ns, "demo-config").Data).NotTo(HaveKey("added"), "kubectl edit's fields are taken over and dropped")
	})
})

func deployment(namespace, name string) *appsv1.Deployment {
	GinkgoHelper()
	d := &appsv1.Deployment{}
	Expect(clitest.Env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, d)).To(Succeed())
	return d
}

func replicaSetsOf(namespace string) []appsv1.ReplicaSet {
	GinkgoHelper()
	var list appsv1.ReplicaSetList
	Expect(clitest.Env.Client.List(context.Background(), &list, client.InNamespace(namespace))).To(Succeed())
	return list.Items
}
