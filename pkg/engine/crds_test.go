package engine_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("CRD policy", func() {
	var (
		ctx context.Context
		h   *harness
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("crds")
	})

	// withVersions is gadgetCRD serving the named versions, the last one
	// stored.
	withVersions := func(group string, names ...string) *unstructured.Unstructured {
		crd := gadgetCRD(group)
		var versions []any
		for i, name := range names {
			versions = append(versions, map[string]any{
				"name": name, "served": true, "storage": i == len(names)-1,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			})
		}
		Expect(unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions")).To(Succeed())
		return crd
	}
	crdName := func(group string) string { return "gadgets." + group }
	liveCRD := func(group string) *unstructured.Unstructured {
		return get(ctx, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", crdName(group))
	}
	shortNames := func(crd *unstructured.Unstructured) []string {
		names, _, _ := unstructured.NestedStringSlice(crd.Object, "spec", "names", "shortNames")
		return names
	}
	withShortName := func(crd *unstructured.Unstructured) *unstructured.Unstructured {
		Expect(unstructured.SetNestedStringSlice(crd.Object, []string{"gdg"}, "spec", "names", "shortNames")).To(Succeed())
		return crd
	}
	deleteCRD := func(group string) {
		DeferCleanup(func() {
			if crd := liveCRD(group); crd != nil {
				Expect(env.Client.Delete(context.Background(), crd)).To(Succeed())
			}
		})
	}

	It("refuses a render that drops a version status.storedVersions still lists, before writing anything", func() {
		group := ns + ".stored.wavekit.dev"
		deleteCRD(group)
		h.applyUntilDone(ctx, withVersions(group, "v1alpha1"), configMap(ns, "cm", map[string]string{"v": "1"}))
		Eventually(func() []string {
			stored, _, _ := unstructured.NestedStringSlice(liveCRD(group).Object, "status", "storedVersions")
			return stored
		}).Should(Equal([]string{"v1alpha1"}))

		h.counter.Reset()
		_, err := h.apply(ctx, withVersions(group, "v1"), configMap(ns, "cm", map[string]string{"v": "2"}))
		Expect(err).To(MatchError("apiextensions.k8s.io/CustomResourceDefinition " + crdName(group) + " would drop version v1alpha1, which status.storedVersions still lists: " +
			"objects stored in it would become unreadable. Migrate them to a served version first (a storage version migration, " +
			"or read and write each object again), then remove v1alpha1 from the CRD's status.storedVersions, then apply this render"))
		var userErr *manifests.UserError
		Expect(errors.As(err, &userErr)).To(BeTrue(), "a render to change, not a retry")
		var objErr *engine.ObjectError
		Expect(errors.As(err, &objErr)).To(BeTrue(), "the refusal names its CRD")
		Expect(objErr.Object).To(Equal(manifests.ObjectKey{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition", Name: crdName(group)}))
		Expect(h.counter.Writes()).To(BeZero(), h.counter.String())
		Expect(getConfigMap(ctx, ns, "cm").Data).To(HaveKeyWithValue("v", "1"))

		By("serving both versions, the update goes through")
		h.applyUntilDone(ctx, withVersions(group, "v1alpha1", "v1"), configMap(ns, "cm", map[string]string{"v": "2"}))
		Expect(getConfigMap(ctx, ns, "cm").Data).To(HaveKeyWithValue("v", "2"))
	})

	It("with Skip, neither creates, updates nor deletes a CRD, and drops one it recorded from the inventory", func() {
		group := ns + ".skip.wavekit.dev"
		deleteCRD(group)
		h.owner.Defaults.CRDs = manifests.CRDSkip
		h.applyUntilDone(ctx, gadgetCRD(group), configMap(ns, "cm", nil))
		Expect(liveCRD(group)).To(BeNil(), "Skip created the CRD")
		Expect(itemKeys(h.inventory)).To(Equal([]string{"ConfigMap " + ns + "/cm"}))

		h.owner.Defaults.CRDs = manifests.CRDCreateReplace
		h.applyUntilDone(ctx, gadgetCRD(group), configMap(ns, "cm", nil))
		Expect(liveCRD(group)).NotTo(BeNil())
		h.owner.Defaults.CRDs = manifests.CRDSkip
		h.applyUntilDone(ctx, withShortName(gadgetCRD(group)), configMap(ns, "cm", nil))
		Expect(shortNames(liveCRD(group))).To(BeEmpty(), "Skip updated the CRD")
		Expect(itemKeys(h.inventory)).To(Equal([]string{"ConfigMap " + ns + "/cm"}))
		h.deleteUntilDone(ctx)
		Expect(liveCRD(group)).NotTo(BeNil(), "the CRD left the inventory and is not deleted with it")
	})

	It("with Create, creates a missing CRD and never updates it; one that exists outside the inventory is left alone", func() {
		group := ns + ".create.wavekit.dev"
		deleteCRD(group)
		h.owner.Defaults.CRDs = manifests.CRDCreate
		h.applyUntilDone(ctx, gadgetCRD(group))
		Expect(liveCRD(group)).NotTo(BeNil())
		h.counter.Reset()
		h.applyUntilDone(ctx, withShortName(gadgetCRD(group)))
		Expect(shortNames(liveCRD(group))).To(BeEmpty(), "Create updated the CRD")
		Expect(h.counter.Writes()).To(BeZero(), h.counter.String())

		other := ns + ".other.wavekit.dev"
		deleteCRD(other)
		Expect(env.Client.Create(ctx, gadgetCRD(other))).To(Succeed())
		h.applyUntilDone(ctx, gadgetCRD(group), withShortName(gadgetCRD(other)))
		Expect(itemKeys(h.inventory)).To(Equal([]string{"apiextensions.k8s.io/CustomResourceDefinition " + crdName(group)}))
		Expect(shortNames(liveCRD(other))).To(BeEmpty())
		Expect(liveCRD(other).GetLabels()).NotTo(HaveKey("test.wavekit.dev/owner-id"), "not adopted")
	})

	It("reads the policy from the object's crd-policy annotation over the owner's", func() {
		group := ns + ".annotated.wavekit.dev"
		deleteCRD(group)
		h.applyUntilDone(ctx, gadgetCRD(group, "crd-policy", "Skip"))
		Expect(liveCRD(group)).To(BeNil())
	})
})
