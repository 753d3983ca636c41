package manifests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// DecodeObjects splits a multi-document YAML (or JSON) stream into objects.
// Empty documents and documents that hold only comments are skipped; a `kind:
// List` is flattened into its items. source names the input in errors (a file
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

func decodeDocument(raw []byte) ([]*unstructured.Unstructured, error) {
	var content map[string]any
	if err := yaml.Unmarshal(raw, &content); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	if len(content) == 0 {
		return nil, nil
	}
	obj := &unstructured.Unstructured{Object: content}
	if !obj.IsList() {
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
