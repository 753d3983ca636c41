package patch_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

func TestPatch(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "generator/patch")
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

// yamlOf returns the objects as one YAML list, for exact comparisons; every
// object must be unstructured.
func yamlOf(objs []client.Object) string {
	contents := make([]map[string]any, 0, len(objs))
	for _, obj := range objs {
		u, ok := obj.(*unstructured.Unstructured)
		Expect(ok).To(BeTrue(), "%T is not unstructured", obj)
		contents = append(contents, u.Object)
	}
	data, err := yaml.Marshal(contents)
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}
