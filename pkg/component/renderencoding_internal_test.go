package component

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestEncodeEachIsJSONMarshal checks that the joined encodings of
// encodeEach are the bytes json.Marshal gives, so that render digests stay
// as they were.
func TestEncodeEachIsJSONMarshal(t *testing.T) {
	escaped := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "e"},
		"data": map[string]any{"html": "<a href='x'>&</a>", "line": "\u2028", "n": int64(3), "f": 1.5e-7, "list": []any{nil, true}},
	}}
	typed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns"}, Data: map[string]string{"k": "<v>"}}
	for _, objects := range [][]client.Object{
		nil, {}, {configMap("a", "1")}, {configMap("a", "1"), escaped, typed},
		{&unstructured.Unstructured{}}, {nil},
	} {
		want, wantErr := json.Marshal(objects)
		encoded, err := encodeEach(objects)
		got := joinArray(encoded)
		if (err != nil) != (wantErr != nil) || (err == nil && !bytes.Equal(got, want)) {
			t.Errorf("encodeEach(%v) = %s, %v; json.Marshal gives %s, %v", objects, got, err, want, wantErr)
		}
	}
}

// BenchmarkKeptRenderObjects measures what a pass whose inputs did not change
// pays instead of a render: decoding the current render's 500 ConfigMaps.
func BenchmarkKeptRenderObjects(b *testing.B) {
	objects := make([]client.Object, 500)
	for i := range objects {
		objects[i] = configMap(fmt.Sprintf("cm-%04d", i), strings.Repeat("v", 100))
	}
	render, err := encodeRender(objects)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := render.objects(); err != nil {
			b.Fatal(err)
		}
	}
}
