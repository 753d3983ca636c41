package diffview

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var _ = Describe("maskSecrets", func() {
	secret := func(fields map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret"}}
		for k, v := range fields {
			u.Object[k] = v
		}
		return u
	}

	It("marks kept, changed, added and removed keys, and leaves its inputs alone", func() {
		before := secret(map[string]any{"data": map[string]any{"kept": "YQ==", "changed": "Yg==", "removed": "Yw=="}})
		after := secret(map[string]any{"data": map[string]any{"kept": "YQ==", "changed": "ZA==", "added": "ZQ=="}})
		b, a := maskSecrets(before, after)
		Expect(b.Object["data"]).To(Equal(map[string]any{"kept": "***", "changed": "*** (before)", "removed": "***"}))
		Expect(a.Object["data"]).To(Equal(map[string]any{"kept": "***", "changed": "*** (after)", "added": "***"}))
		Expect(before.Object["data"]).To(HaveKeyWithValue("changed", "Yg=="))
	})

	It("masks a created or deleted Secret, a malformed field and kubectl's last-applied copy", func() {
		created := secret(map[string]any{"stringData": "s3cret", "metadata": map[string]any{
			"annotations": map[string]any{lastApplied: `{"stringData":"s3cret"}`, "other": "shown"}}})
		b, a := maskSecrets(nil, created)
		Expect(b).To(BeNil())
		Expect(a.Object["stringData"]).To(Equal("***"))
		Expect(a.GetAnnotations()).To(Equal(map[string]string{lastApplied: "***", "other": "shown"}))
	})

	It("leaves other kinds as they are", func() {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"a": "b"}}}
		b, a := maskSecrets(cm, cm)
		Expect(b).To(BeIdenticalTo(cm))
		Expect(a.Object["data"]).To(Equal(map[string]any{"a": "b"}))
	})
})
