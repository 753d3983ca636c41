package kinds

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// countingMapper is a DefaultRESTMapper that counts the RESTMapping
// questions it answers.
type countingMapper struct {
	*meta.DefaultRESTMapper
	asked int
}

func (c *countingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	c.asked++
	return c.DefaultRESTMapper.RESTMapping(gk, versions...)
}

// TestRememberedAnswersAgainFromMemory: a kind's mapping is asked of the
// mapper once, whatever its scope; asking of another kind of its group, or
// Reset, makes the next question the mapper's again, since the mapper may
// have read the group anew.
func TestRememberedAnswersAgainFromMemory(t *testing.T) {
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	cluster := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Cluster"}
	configMap := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	inner := &countingMapper{DefaultRESTMapper: meta.NewDefaultRESTMapper(nil)}
	inner.Add(widget, meta.RESTScopeNamespace)
	inner.Add(cluster, meta.RESTScopeRoot)
	inner.Add(configMap, meta.RESTScopeNamespace)
	mapper := Remembered(inner)
	ask := func(gvk schema.GroupVersionKind, wantScope meta.RESTScopeName, wantAsked int) {
		t.Helper()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil || mapping.Scope.Name() != wantScope || mapping.GroupVersionKind != gvk {
			t.Fatalf("RESTMapping(%s) = %+v, %v", gvk, mapping, err)
		}
		if inner.asked != wantAsked {
			t.Fatalf("after RESTMapping(%s) the mapper was asked %d times, want %d", gvk, inner.asked, wantAsked)
		}
	}
	ask(widget, meta.RESTScopeNameNamespace, 1)
	ask(widget, meta.RESTScopeNameNamespace, 1)
	ask(configMap, meta.RESTScopeNameNamespace, 2)
	ask(cluster, meta.RESTScopeNameRoot, 3) // the group may have been read again
	ask(widget, meta.RESTScopeNameNamespace, 4)
	ask(widget, meta.RESTScopeNameNamespace, 4)
	mapper.Reset()
	ask(widget, meta.RESTScopeNameNamespace, 5)
	if _, err := mapper.RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Gadget"}, "v1"); !meta.IsNoMatchError(err) {
		t.Fatalf("an unknown kind: %v, want the mapper's no-match error", err)
	}
	ask(widget, meta.RESTScopeNameNamespace, 7)
}
