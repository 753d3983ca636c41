package keptrender

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestObjectsDecodeAsEncodingJSON checks that Objects, which decodes with
// encoding/json/v2's prototype, gives the values encoding/json gives for
// what Encode writes: escapes, invalid UTF-8 made valid, numbers, nulls.
func TestObjectsDecodeAsEncodingJSON(t *testing.T) {
	odd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "odd", "labels": map[string]any{}},
		"data": map[string]any{"html": "<a href='x'>&</a>", "line": "\u2028", "bad": "\xff\xfe", "n": int64(3), "big": int64(1) << 60,
			"f": 1.5e-7, "list": []any{nil, true, map[string]any{}}, "": "empty name"},
	}}
	render, err := Encode([]client.Object{configMap("a", "1"), odd})
	if err != nil {
		t.Fatal(err)
	}
	var want []any
	if err := json.Unmarshal(render.data, &want); err != nil {
		t.Fatal(err)
	}
	objects, err := render.Objects()
	if err != nil {
		t.Fatal(err)
	}
	if len(objects) != len(want) {
		t.Fatalf("Objects gave %d objects, encoding/json %d", len(objects), len(want))
	}
	for i, o := range objects {
		if got := o.(*unstructured.Unstructured).Object; !equality.Semantic.DeepEqual(got, want[i]) {
			t.Errorf("object %d: Objects gave %#v, encoding/json %#v", i, got, want[i])
		}
	}
}

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
	render := renderOfConfigMaps(b, 500)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := render.Objects(); err != nil {
			b.Fatal(err)
		}
	}
}

func configMap(name, value string) client.Object {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "ns"},
		"data":     map[string]any{"value": value},
	}}
}

func TestRenderDigestAndRoundTrip(t *testing.T) {
	one, err := Encode([]client.Object{configMap("a", "1"), configMap("b", "2")})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Encode([]client.Object{configMap("a", "1"), configMap("b", "2")})
	changed, _ := Encode([]client.Object{configMap("a", "1"), configMap("b", "3")})
	if one.Digest != again.Digest || !strings.HasPrefix(one.Digest, "sha256:") {
		t.Fatalf("the same objects have digests %s and %s", one.Digest, again.Digest)
	}
	reordered, _ := Encode([]client.Object{configMap("b", "2"), configMap("a", "1")})
	if reordered.Digest != one.Digest {
		t.Fatal("the same objects in another order have another digest")
	}
	if one.Digest == changed.Digest {
		t.Fatal("a changed value keeps the digest")
	}
	objects, err := one.Objects()
	if err != nil {
		t.Fatal(err)
	}
	back, _ := Encode(objects)
	if back.Digest != one.Digest {
		t.Fatalf("decoded objects have digest %s, want %s", back.Digest, one.Digest)
	}
	kept, err := reordered.Objects()
	if err != nil || kept[0].GetName() != "b" || kept[1].GetName() != "a" {
		t.Fatalf("the kept render does not keep the generator's order: %v, %v", kept, err)
	}
	for _, r := range []Render{one, reordered} {
		if got, err := digestOf(r.data); err != nil || got != one.Digest {
			t.Fatalf("digestOf(%s) = %s, %v; want %s", r.data, got, err, one.Digest)
		}
	}
}

func TestRenderSecretName(t *testing.T) {
	if got := SecretName("Component", "web", "render"); got != "web.component.render" {
		t.Fatalf("got %q", got)
	}
	long := strings.Repeat("a", 253)
	got := SecretName("Component", long, "render")
	if len(got) > 253 || got == SecretName("Component", long[:252], "render") {
		t.Fatalf("a long name gives %q (%d bytes)", got, len(got))
	}
}

// renderOfConfigMaps is the render of n ConfigMaps of 100 bytes of data.
func renderOfConfigMaps(b *testing.B, n int) Render {
	b.Helper()
	objects := make([]client.Object, n)
	for i := range objects {
		objects[i] = configMap(fmt.Sprintf("cm-%04d", i), strings.Repeat("v", 100))
	}
	render, err := Encode(objects)
	if err != nil {
		b.Fatal(err)
	}
	return render
}
