package plan

import (
	"maps"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestOwnAnnotationsOfIsGetAnnotationsUnderPrefix checks that
// ownAnnotationsOf gives what GetAnnotations gives, filtered to the keys
// under the prefix, for every shape annotations take.
func TestOwnAnnotationsOfIsGetAnnotationsUnderPrefix(t *testing.T) {
	const prefix = "wavekit.dev"
	for name, annotations := range map[string]any{
		"none":               nil,
		"empty":              map[string]any{},
		"others only":        map[string]any{"a": "1", "helm.sh/hook": "pre-install"},
		"ours and others":    map[string]any{"a": "1", prefix + "/apply-order": "2", prefix + "/delete-policy": "orphan"},
		"look-alikes":        map[string]any{prefix: "x", prefix + "x/apply-order": "1", "x" + prefix + "/apply-order": "1", prefix + "/": "empty suffix"},
		"a null value":       map[string]any{prefix + "/apply-order": nil, "b": "2"},
		"a value not text":   map[string]any{prefix + "/apply-order": "1", "n": int64(3)},
		"annotations a list": []any{"a"},
	} {
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x"}}}
		if annotations != nil {
			u.Object["metadata"].(map[string]any)["annotations"] = annotations
		}
		want := map[string]string{}
		for key, value := range u.GetAnnotations() {
			if strings.HasPrefix(key, prefix+"/") {
				want[key] = value
			}
		}
		if got := ownAnnotationsOf(u, prefix); !maps.Equal(got, want) {
			t.Errorf("%s: ownAnnotationsOf = %v, GetAnnotations under the prefix = %v", name, got, want)
		}
	}
}
