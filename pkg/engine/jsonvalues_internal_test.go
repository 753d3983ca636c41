package engine

import (
	"math"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestNormaliseJSONIsTheRoundTrip checks that the walk of normaliseJSON
// gives what a JSON round trip gives, for plain JSON values and for the Go
// types a renderer may leave in an object.
func TestNormaliseJSONIsTheRoundTrip(t *testing.T) {
	values := []any{
		nil, true, "text", float64(1.5), int64(3), int64(1<<53 + 1), int64(-1 << 62),
		map[string]any{"a": int64(1), "b": []any{int64(2), "x", nil, map[string]any{}}, "c": map[string]any(nil)},
		[]any(nil), []any{}, map[string]any{},
		map[string]any{"typed": []string{"a"}, "n": int32(7), "m": map[string]string{"k": "v"}},
		map[string]any{"bad": "\xff"}, map[string]any{"\xfe": "key"},
		map[string]any{"nan": math.NaN()},
		map[string]any{"q": int(4), "u": uint8(2), "f": float32(0.25)},
	}
	for _, v := range values {
		got, want := normaliseJSON(v), jsonRoundTrip(v)
		if !reflect.DeepEqual(got, want) && !hasNaN(v) {
			t.Errorf("normaliseJSON(%#v) = %#v, the round trip gives %#v", v, got, want)
		}
	}
}

func hasNaN(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	f, ok := m["nan"].(float64)
	return ok && math.IsNaN(f)
}

// TestStoredFormMadeOnce checks that a stored form is made once per render
// digest and that a learnt form is not replaced by the form of a pass that
// read the entry before.
func TestStoredFormMadeOnce(t *testing.T) {
	forms := newStoredForms(nil)
	key := manifests.ObjectKey{Kind: "Widget", Name: "w"}
	obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": map[string]any{"size": int64(3)}}
	d := &desired{key: key, digest: "d1", object: &unstructured.Unstructured{Object: obj}}
	first, _ := forms.of(d)
	second, _ := forms.of(d)
	if reflect.ValueOf(first).Pointer() != reflect.ValueOf(second).Pointer() {
		t.Error("the stored form was made twice for one digest")
	}
	forms.learn(d, map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": map[string]any{"size": int64(3), "mode": "x"}})
	forms.keep(key, storedForm{digest: "d1"})
	if _, exact := forms.of(d); !exact {
		t.Error("an inexact form replaced the learnt one")
	}
}
