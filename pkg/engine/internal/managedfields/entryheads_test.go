package managedfields

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestEntryHeadsReadWhatGetManagedFieldsReads checks that the heads read
// from an Unstructured's maps are those of its converted entries, for
// entries of every shape a takeover decision tells apart.
func TestEntryHeadsReadWhatGetManagedFieldsReads(t *testing.T) {
	fields := &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:a":{}}}`)}
	entries := []metav1.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: fields},
		{Manager: "wavekit", Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: fields},
		{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", FieldsV1: fields},
		{Manager: "empty", Operation: metav1.ManagedFieldsOperationUpdate},
	}
	for n := range len(entries) + 1 {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetManagedFields(entries[:n])
		want := make([]entryHead, 0, n)
		for _, e := range u.GetManagedFields() {
			want = append(want, headOf(e))
		}
		if got := entryHeads(u); !reflect.DeepEqual(got, want) {
			t.Errorf("%d entries: entryHeads = %+v, GetManagedFields gives %+v", n, got, want)
		}
		typed := &metav1.ObjectMeta{ManagedFields: entries[:n]}
		if got := entryHeads(typed); !reflect.DeepEqual(got, want) {
			t.Errorf("%d entries of a typed object: entryHeads = %+v, want %+v", n, got, want)
		}
	}
	if !HasTakeOver(func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetManagedFields(entries)
		return u
	}(), "wavekit", []string{"kubectl"}) {
		t.Error("an Update of kubectl is not taken over when kubectl is in the managers")
	}
}
