package template_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestTemplate(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Template generator")
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
