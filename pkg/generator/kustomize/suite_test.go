package kustomize_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestKustomize(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Kustomize generator")
}

// contents returns the objects as plain maps, in order.
func contents(objects []client.Object) []map[string]any {
	out := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		u, ok := obj.(*unstructured.Unstructured)
		Expect(ok).To(BeTrue(), "object %T is not unstructured", obj)
		out = append(out, u.Object)
	}
	return out
}

// decode returns the objects of a YAML stream as plain maps, in order,
// with integers as int64 like the generator's objects.
func decode(data []byte) []map[string]any {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []map[string]any
	for {
		obj := &unstructured.Unstructured{}
		err := decoder.Decode(obj)
		if errors.Is(err, io.EOF) {
			return out
		}
		Expect(err).NotTo(HaveOccurred())
		if len(obj.Object) > 0 {
			out = append(out, obj.Object)
		}
	}
}
