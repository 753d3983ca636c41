package component_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("the status after others act", func() {
	var (
		ctx context.Context
		ns  string
	)
	BeforeEach(func() {
		ctx = context.Background()
		ns = newNamespace(ctx)
	})

	It("tells the component that lost an object to a takeover, and puts the object back once the taker deletes it", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{RequeueInterval: time.Hour})
		first := newComponent(ns, "first", map[string]any{"configMaps": map[string]any{"shared": map[string]any{}}})
		Expect(env.Client.Create(ctx, first)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, first) }).Should(HavePrefix("True/Ready"))

		taker := newComponent(ns, "taker", map[string]any{"configMaps": map[string]any{
			"shared": map[string]any{"annotations": map[string]any{"adoption-policy": "always"}}}})
		Expect(env.Client.Create(ctx, taker)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, taker) }).Should(HavePrefix("True/Ready"))
		// No requeue is due for an hour: only the takeover's event can tell the first component.
		eventually(func() string { return readyCondition(ctx, first) }).Should(SatisfyAll(
			HavePrefix("False/"), ContainSubstring("ConfigMap "+ns+"/shared was taken over by Component "+ns+"/taker; "+
				"it is applied again once that owner deletes or releases it")))

		Expect(env.Client.Delete(ctx, taker)).To(Succeed())
		eventually(func() *v1alpha1.Component { return getComponent(ctx, taker) }).Should(BeNil())
		eventually(func() string { return readyCondition(ctx, first) }).Should(HavePrefix("True/Ready"))
		ownerLabel := operator + "/" + manifests.LabelOwnerID
		Expect(getConfigMap(ctx, ns, "shared").Labels[ownerLabel]).To(Equal(manifests.OwnerID("wavekit.dev", "Component", ns, "first")))
	})

	It("does not take back an object another component took over, even when both may adopt it", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{RequeueInterval: time.Hour})
		always := map[string]any{"configMaps": map[string]any{
			"shared": map[string]any{"annotations": map[string]any{"adoption-policy": "always"}}}}
		first := newComponent(ns, "first", always)
		Expect(env.Client.Create(ctx, first)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, first) }).Should(HavePrefix("True/Ready"))
		taker := newComponent(ns, "taker", always)
		Expect(env.Client.Create(ctx, taker)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, taker) }).Should(HavePrefix("True/Ready"))
		eventually(func() string { return readyCondition(ctx, first) }).Should(ContainSubstring("was taken over by Component " + ns + "/taker"))

		// Two owners that took the object from each other would change it on every pass.
		resourceVersion := getConfigMap(ctx, ns, "shared").ResourceVersion
		Consistently(func() string { return getConfigMap(ctx, ns, "shared").ResourceVersion }).
			WithTimeout(3 * time.Second).Should(Equal(resourceVersion))
		Expect(readyCondition(ctx, taker)).To(HavePrefix("True/Ready"))

		Expect(env.Client.Delete(ctx, taker)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, first) }).Should(HavePrefix("True/Ready"))
		Expect(getConfigMap(ctx, ns, "shared").Labels[operator+"/"+manifests.LabelOwnerID]).
			To(Equal(manifests.OwnerID("wavekit.dev", "Component", ns, "first")))
	})

	It("deletes a CRD it kept for foreign instances within seconds of the last one going", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{RequeueInterval: time.Hour})
		group := ns + ".kept.wavekit.dev"
		c := newComponent(ns, "kept", map[string]any{"crdGroup": group})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))

		foreign := &unstructured.Unstructured{}
		foreign.SetAPIVersion(group + "/v1")
		foreign.SetKind("Gadget")
		foreign.SetNamespace(ns)
		foreign.SetName("foreign")
		eventually(func() error { return env.Client.Create(ctx, foreign) }).Should(Succeed())

		got := getComponent(ctx, c)
		setValues(got, map[string]any{})
		Expect(env.Client.Update(ctx, got)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(ContainSubstring(
			"gadgets." + group + " is kept: 1 foreign instance of Gadget." + group + " exist"))

		Expect(env.Client.Delete(ctx, foreign)).To(Succeed())
		// The requeue of a Ready component is an hour away in this spec's
		// options: only the recheck while something is kept can see this.
		Eventually(func() bool {
			crd := &metav1.PartialObjectMetadata{}
			crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
			err := env.Client.Get(ctx, client.ObjectKey{Name: "gadgets." + group}, crd)
			return apierrors.IsNotFound(err)
		}).WithTimeout(20 * time.Second).Should(BeTrue())
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("True/Ready: every object is applied and ready"))
	})
})
