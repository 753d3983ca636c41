package engine_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// BenchmarkTakeOverTransform runs the target cache's transform on a
// ConfigMap as a watch event brings it after a server-side apply: one Apply
// entry of the operator and one status-free Update entry of another
// writer, which the operator does not take over.
func BenchmarkTakeOverTransform(b *testing.B) {
	fields := &metav1.FieldsV1{Raw: []byte(`{"f:data":{".":{},"f:value":{}},"f:metadata":{"f:labels":{".":{},"f:wavekit.dev/owner-id":{}}}}`)}
	event := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm-00001", "namespace": "bench"},
		"data":     map[string]any{"value": "v1"},
	}}
	event.SetManagedFields([]metav1.ManagedFieldsEntry{
		{Manager: "wavekit", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: fields},
		{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: fields},
	})
	transform := engine.TakeOverTransform("wavekit", nil)
	// Each round transforms a copy, as each event is a new object: "copy"
	// is what the copy alone costs.
	b.Run("copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = event.DeepCopy()
		}
	})
	b.Run("copy-and-transform", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := transform(event.DeepCopy()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
