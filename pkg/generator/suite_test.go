package generator_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

func TestGenerator(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Generator composition")
}

// static returns a generator that returns the objects of manifest, freshly
// decoded on every call.
func static(manifest string) manifests.Generator {
	return manifests.GeneratorFunc(func(context.Context, string, string, manifests.Parameters) ([]client.Object, error) {
		return objects(manifest), nil
	})
}

// failing returns a generator that fails with err.
func failing(err error) manifests.Generator {
	return manifests.GeneratorFunc(func(context.Context, string, string, manifests.Parameters) ([]client.Object, error) {
		return nil, err
	})
}

// objects decodes a YAML stream into unstructured objects.
func objects(manifest string) []client.Object {
	decoded, err := manifests.DecodeObjects("test", []byte(manifest))
	Expect(err).NotTo(HaveOccurred())
	out := make([]client.Object, 0, len(decoded))
	for _, obj := range decoded {
		out = append(out, obj)
	}
	return out
}

// yamlOf returns the objects as one YAML list, for exact comparisons.
func yamlOf(objs []client.Object) string {
	contents := make([]map[string]any, 0, len(objs))
	for _, obj := range objs {
		u, ok := obj.(*unstructured.Unstructured)
		Expect(ok).To(BeTrue())
		contents = append(contents, u.Object)
	}
	data, err := yaml.Marshal(contents)
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}

func names(objs []client.Object) []string {
	out := make([]string, 0, len(objs))
	for _, obj := range objs {
		out = append(out, obj.GetName())
	}
	return out
}
