package receiver

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestVersionOnlyKeepsWhatTellsAChange(t *testing.T) {
	in := secretMetadata()
	in.ObjectMeta = metav1.ObjectMeta{Namespace: "team-a", Name: "token", UID: "u1", ResourceVersion: "42",
		Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"note": "a long annotation"},
		OwnerReferences: []metav1.OwnerReference{{Name: "owner"}}, Finalizers: []string{"f"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}
	out, err := versionOnly(in)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*metav1.PartialObjectMetadata)
	want := metav1.ObjectMeta{Namespace: "team-a", Name: "token", UID: "u1", ResourceVersion: "42"}
	if got.Kind != "Secret" || got.ObjectMeta.String() != want.String() {
		t.Fatalf("versionOnly kept %v %v, want Secret %v", got.Kind, got.ObjectMeta, want)
	}
	if in.Labels == nil {
		t.Fatal("versionOnly changed its input")
	}
	other := "not metadata"
	if kept, _ := versionOnly(other); kept != other {
		t.Fatalf("versionOnly changed %v", other)
	}
}
