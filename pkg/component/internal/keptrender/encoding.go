package keptrender

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	jsonv2 "github.com/go-json-experiment/json"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Render is a render's objects as a JSON array, in the order the
// generator returned them (the order objects of one wave and kind are
// applied in), and its digest.
type Render struct {
	Digest string
	data   []byte
}

// Encode encodes the objects of a render. Its digest is that of the
// same array sorted by group, kind, namespace and name, so that a generator
// that returns them in another order (from a map, say) renders the same
// digest.
func Encode(objects []client.Object) (Render, error) {
	encoded, err := encodeEach(objects)
	if err != nil {
		return Render{}, fmt.Errorf("encoding the rendered objects: %w", err)
	}
	keys := make([]string, len(objects))
	for i, o := range objects {
		keys[i] = renderSortKey(o)
	}
	return Render{Digest: sortedDigest(encoded, keys), data: joinArray(encoded)}, nil
}

// encodeEach is json.Marshal of each object, byte for byte, without its
// second pass: the encoding of an Unstructured is that of its map, which
// json.Marshal would encode, then check and compact again as the output of
// a MarshalJSON method (a fifth of a no-op Reconcile's CPU at 500 objects).
// A nil list stays nil.
func encodeEach(objects []client.Object) ([][]byte, error) {
	if objects == nil {
		return nil, nil
	}
	encoded := make([][]byte, len(objects))
	for i, o := range objects {
		var v any = o
		if u, ok := o.(*unstructured.Unstructured); ok && u != nil {
			v = u.Object
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		encoded[i] = data
	}
	return encoded, nil
}

// joinArray joins encoded objects into a JSON array; nil is null.
func joinArray(encoded [][]byte) []byte {
	if encoded == nil {
		return []byte("null")
	}
	out := []byte{'['}
	for i, data := range encoded {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, data...)
	}
	return append(out, ']')
}

// sortedDigest is the digest of the array of encoded objects sorted by
// their keys, ties in their order.
func sortedDigest(encoded [][]byte, keys []string) string {
	order := make([]int, len(encoded))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	sorted := make([][]byte, len(encoded))
	for i, j := range order {
		sorted[i] = encoded[j]
	}
	if encoded == nil {
		sorted = nil
	}
	sum := sha256.Sum256(joinArray(sorted))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// renderSortKey orders the objects of a render.
func renderSortKey(o client.Object) string {
	gvk := o.GetObjectKind().GroupVersionKind()
	return gvk.Group + "/" + gvk.Kind + "/" + o.GetNamespace() + "/" + o.GetName()
}

// digestOf returns the digest of encoded render data: that of its objects
// sorted as Encode sorts them, whatever order data keeps them in.
func digestOf(data []byte) (string, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return "", fmt.Errorf("decoding the kept render: %w", err)
	}
	keys := make([]string, len(raw))
	for i, object := range raw {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(object, &head); err != nil {
			return "", fmt.Errorf("decoding object %d of the kept render: %w", i+1, err)
		}
		group, _, found := strings.Cut(head.APIVersion, "/")
		if !found {
			group = ""
		}
		keys[i] = group + "/" + head.Kind + "/" + head.Metadata.Namespace + "/" + head.Metadata.Name
	}
	encoded := make([][]byte, len(raw))
	for i, object := range raw {
		encoded[i] = object
	}
	if raw == nil {
		encoded = nil
	}
	return sortedDigest(encoded, keys), nil
}

// Objects decodes the render into new objects: every pass whose inputs did
// not change decodes its render. It decodes into []any, filled without
// reflection, with the prototype of Go's encoding/json/v2
// (github.com/go-json-experiment/json), a fifth faster than encoding/json
// for 500 ConfigMaps (BenchmarkKeptRenderObjects) and to the same values:
// the data is encoding/json's own output, which v2's stricter reading
// (no duplicate names, valid UTF-8 only) accepts whole.
func (k Render) Objects() ([]client.Object, error) {
	var raw []any
	if err := jsonv2.Unmarshal(k.data, &raw); err != nil {
		return nil, fmt.Errorf("decoding the kept render: %w", err)
	}
	objects := make([]client.Object, len(raw))
	for i, o := range raw {
		content, ok := o.(map[string]any)
		if !ok && o != nil {
			return nil, fmt.Errorf("decoding the kept render: object %d is a %T, not an object", i+1, o)
		}
		objects[i] = &unstructured.Unstructured{Object: content}
	}
	return objects, nil
}
