package drift

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("fields left to other writers", func() {
	// live is a Deployment whose replicas an autoscaler set through the
	// scale subresource, whose container image someone patched, and whose
	// annotation a mesh injected; wavekit created the rest.
	live := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "annotations": map[string]any{"mesh/injected": "true", "team": "a"}},
			"spec": map[string]any{"replicas": int64(5), "template": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{"name": "app", "image": "app:patched"}}}}},
		}}
		u.SetManagedFields([]metav1.ManagedFieldsEntry{
			{Manager: "wavekit", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: metav1.NewFieldsV1(
				`{"f:metadata":{"f:annotations":{"f:team":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{"f:name":{}}}}}}}`)},
			{Manager: "autoscaler", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "scale", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:replicas":{}}}`)},
			{Manager: "kubectl-patch", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: metav1.NewFieldsV1(
				`{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{"f:image":{}}}}}}}`)},
			{Manager: "mesh", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:annotations":{"f:mesh/injected":{}}}}`)},
		})
		return u
	}
	rendered := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "annotations": map[string]any{"team": "a"}},
			"spec": map[string]any{"replicas": int64(1), "template": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{"name": "app", "image": "app:1"}}}}},
		}}
	}
	pointer := func(text string) manifests.Pointer {
		p, err := manifests.ParsePointer(text)
		Expect(err).NotTo(HaveOccurred())
		return p
	}

	DescribeTable("who owns a field, by managedFields",
		func(path string, others bool) {
			Expect(ownedByOthers(live(), pointer(path), "wavekit")).To(Equal(others))
		},
		Entry("replicas, set through the scale subresource", "/spec/replicas", true),
		Entry("a field under an ignored map", "/spec", true),
		Entry("a list element's field, by its merge key", "/spec/template/spec/containers/0/image", true),
		Entry("a list element's field wavekit owns", "/spec/template/spec/containers/0/name", false),
		Entry("an index past the list", "/spec/template/spec/containers/1/image", false),
		Entry("an injected annotation", "/metadata/annotations/mesh~1injected", true),
		Entry("wavekit's own annotation", "/metadata/annotations/team", false),
		Entry("a field nobody set", "/spec/paused", false),
	)

	DescribeTable("what is written over the live object",
		func(paths []string, ssa bool, replicas any, image string) {
			var ignore []manifests.Pointer
			for _, p := range paths {
				ignore = append(ignore, pointer(p))
			}
			obj := rendered()
			LeaveToOthers(obj, live(), ignore, "wavekit", ssa)
			got, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "replicas")
			if replicas == nil {
				Expect(found).To(BeFalse(), "replicas is left out")
			} else {
				Expect(got).To(Equal(replicas))
			}
			containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
			if image == "" {
				Expect(containers[0]).NotTo(HaveKey("image"), "the image is left out, the element stays")
			} else {
				Expect(containers[0]).To(HaveKeyWithValue("image", image))
			}
		},
		Entry("server-side apply leaves an owned field out", []string{"/spec/replicas"}, true, nil, "app:1"),
		Entry("replace carries the live value", []string{"/spec/replicas"}, false, int64(5), "app:1"),
		Entry("a field nobody else owns is applied as rendered", []string{"/spec/paused"}, true, int64(1), "app:1"),
		Entry("server-side apply leaves a list element's field out", []string{"/spec/template/spec/containers/0/image"}, true, int64(1), ""),
		Entry("replace carries a list element's live field", []string{"/spec/template/spec/containers/0/image"}, false, int64(1), "app:patched"),
	)
})
