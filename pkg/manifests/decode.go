package manifests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// DecodeObjects splits a multi-document YAML (or JSON) stream into objects.
// Empty documents and documents that hold only comments are skipped; a list
// (`kind: List` or any other kind ending in List, with items) is flattened
// into its items. Any other object keeps a top-level items field as it is. source names the input in errors (a file
// name, a template name).
func DecodeObjects(source string, data []byte) ([]*unstructured.Unstructured, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objects []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objects, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: reading document %d: %w", source, doc, err)
		}
		decoded, err := decodeDocument(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", source, doc, err)
		}
		objects = append(objects, decoded...)
	}
}

// decodeDocument converts one document through JSON, so that whole numbers
// become int64 as they do for objects read from the API server.
func decodeDocument(raw []byte) ([]*unstructured.Unstructured, error) {
	data, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) || bytes.Equal(data, []byte("{}")) {
		return nil, nil
	}
	if data[0] != '{' {
		return nil, fmt.Errorf("expected an object, found %s", firstLine(data))
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("not a Kubernetes object: %w", err)
	}
	return ListItems(obj)
}

// ListItems returns the items of a List (a kind ending in "List" with an
// items list), or obj itself: an object of another kind may have a
// top-level items field of its own.
func ListItems(obj *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	if !obj.IsList() || !strings.HasSuffix(obj.GetKind(), "List") {
		return []*unstructured.Unstructured{obj}, nil
	}
	list, err := obj.ToList()
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", obj.GetKind(), err)
	}
	items := make([]*unstructured.Unstructured, 0, len(list.Items))
	for i := range list.Items {
		items = append(items, &list.Items[i])
	}
	return items, nil
}

func firstLine(data []byte) string {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	if len(line) > 60 {
		line = append(line[:60:60], "..."...)
	}
	return string(line)
}
