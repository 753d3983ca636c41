package component

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAheadRenderTakenOnceAndUnchanged checks that the render of a write
// ahead is taken by the next Reconcile only when the component is as the
// write left it, and only once.
func TestAheadRenderTakenOnceAndUnchanged(t *testing.T) {
	id := types.NamespacedName{Namespace: "ns", Name: "c"}
	at := func(uid, version string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetUID(types.UID(uid))
		u.SetResourceVersion(version)
		return u
	}
	objects := []client.Object{configMap("a", "1")}
	cases := []struct {
		name  string
		taken *unstructured.Unstructured
		want  bool
	}{
		{"unchanged", at("u1", "7"), true},
		{"changed since the write", at("u1", "8"), false},
		{"deleted and created again", at("u2", "7"), false},
	}
	for _, c := range cases {
		a := newAheadRenders()
		a.keep(id, at("u1", "7"), objects, nil)
		if _, _, ok := a.take(id, c.taken); ok != c.want {
			t.Errorf("%s: taken %v, want %v", c.name, ok, c.want)
		}
		if _, _, ok := a.take(id, c.taken); ok {
			t.Errorf("%s: taken twice", c.name)
		}
	}
}
