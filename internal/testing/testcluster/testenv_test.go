package testcluster_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

var _ = Describe("the test control plane", Ordered, func() {
	var env *testcluster.Env
	ctx := context.Background()

	BeforeAll(func() {
		var err error
		env, err = testcluster.Start(testcluster.Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	})

	It("reports the Kubernetes version it was built as", func() {
		dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
		Expect(err).NotTo(HaveOccurred())
		info, err := dc.ServerVersion()
		Expect(err).NotTo(HaveOccurred())
		Expect(info.GitVersion).To(MatchRegexp(`^v1\.37\.\d+$`))
		Expect(info.Minor).To(Equal("37"))
	})

	It("stores an object and reads it back", func() {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default"},
			Data:       map[string]string{"greeting": "hello, wavekit"},
		}
		Expect(env.Client.Create(ctx, cm)).To(Succeed())

		var got corev1.ConfigMap
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(cm), &got)).To(Succeed())
		Expect(got.Data).To(HaveKeyWithValue("greeting", "hello, wavekit"))
		Expect(got.UID).NotTo(BeEmpty())
	})

	It("installs the test CRDs and serves their instances", func() {
		var crd apiextensionsv1.CustomResourceDefinition
		Expect(env.Client.Get(ctx, client.ObjectKey{Name: "widgets.test.wavekit.dev"}, &crd)).To(Succeed())

		widget := &unstructured.Unstructured{}
		widget.SetAPIVersion("test.wavekit.dev/v1")
		widget.SetKind("Widget")
		widget.SetNamespace("default")
		widget.SetName("w1")
		Expect(unstructured.SetNestedField(widget.Object, "blue", "spec", "colour")).To(Succeed())
		Expect(env.Client.Create(ctx, widget)).To(Succeed())

		got := &unstructured.Unstructured{}
		got.SetAPIVersion("test.wavekit.dev/v1")
		got.SetKind("Widget")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(widget), got)).To(Succeed())
		Expect(got.Object).To(HaveKeyWithValue("spec", HaveKeyWithValue("colour", "blue")))
	})
})
