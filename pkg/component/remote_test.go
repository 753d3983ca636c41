package component_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// A second control plane plays the remote cluster that a kubeconfig Secret
// points to.
var _ = Describe("a component deployed to a remote cluster", Ordered, func() {
	var remote *testcluster.Env
	ctx := context.Background()

	BeforeAll(func() {
		var err error
		remote, err = testcluster.Start(testcluster.Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(remote.Stop()).To(Succeed()) })
	})

	It("applies and deletes there, and nothing locally", func() {
		ns := newNamespace(ctx)
		Expect(remote.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		kubeconfig, err := testcluster.KubeconfigBytes(remote.Config)
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: objectMeta(ns, "remote"), Data: map[string][]byte{"config": kubeconfig}})).To(Succeed())

		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "far", map[string]any{"configMaps": map[string]any{"far-away": map[string]any{"data": map[string]any{"k": "v"}}}})
		c.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: "remote", Key: "config"}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))

		var cm corev1.ConfigMap
		Expect(remote.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "far-away"}, &cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("k", "v"))
		Expect(getConfigMap(ctx, ns, "far-away")).To(BeNil())

		// Drift on the remote cluster is corrected by its events too.
		cm.Data["k"] = "edited"
		Expect(remote.Client.Update(ctx, &cm)).To(Succeed())
		eventually(func() string {
			var got corev1.ConfigMap
			Expect(remote.Client.Get(ctx, client.ObjectKeyFromObject(&cm), &got)).To(Succeed())
			return got.Data["k"]
		}).Should(Equal("v"))

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() bool {
			return apierrors.IsNotFound(remote.Client.Get(ctx, client.ObjectKeyFromObject(&cm), &corev1.ConfigMap{}))
		}).Should(BeTrue())
		eventually(func() *v1alpha1.Component { return getComponent(ctx, c) }).Should(BeNil())
	})

	It("reads and writes there as the lockdown's default service account", func() {
		ns := newNamespace(ctx)
		kubeconfig, err := testcluster.KubeconfigBytes(remote.Config)
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: objectMeta(ns, "remote"), Data: map[string][]byte{"config": kubeconfig}})).To(Succeed())

		startOperator(ctx, ns, component.ReconcilerOptions{DefaultServiceAccount: "deployer"})
		c := newComponent(ns, "locked", map[string]any{"configMaps": map[string]any{"far-away": map[string]any{}}})
		c.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: "remote", Key: "config"}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(And(HavePrefix("False/"),
			ContainSubstring(`User "system:serviceaccount:`+ns+`:deployer" cannot list resource "configmaps"`)))
		err = remote.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "far-away"}, &corev1.ConfigMap{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue())
	})

	It("reports a missing kubeconfig Secret clearly", func() {
		ns := newNamespace(ctx)
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "nowhere", map[string]any{})
		c.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: "missing"}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal(
			`False/Error: connecting to the target cluster: reading kubeconfig Secret ` + ns + `/missing: secrets "missing" not found`))
	})
})

var _ = Describe("a component whose target cluster is gone", func() {
	It("waits for the target when deleted, and ends without it once annotated delete-policy: orphan", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		// Nothing listens on port 1 of the loopback address.
		kubeconfig, err := testcluster.KubeconfigBytes(&rest.Config{Host: "https://127.0.0.1:1"})
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: objectMeta(ns, "gone"), Data: map[string][]byte{"value": kubeconfig}})).To(Succeed())
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "stranded", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		c.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: "gone"}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() []string { return getComponent(ctx, c).Finalizers }).ShouldNot(BeEmpty())

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(And(HavePrefix("False/"), ContainSubstring("127.0.0.1:1")))
		Expect(getComponent(ctx, c)).NotTo(BeNil(), "deletion waits for the target")

		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+operator+`/delete-policy":"orphan"}}}`))
		Expect(env.Client.Patch(ctx, getComponent(ctx, c), patch)).To(Succeed())
		eventually(func() *v1alpha1.Component { return getComponent(ctx, c) }).Should(BeNil())
	})
})
