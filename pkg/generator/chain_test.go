package generator_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/generator"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("Chain", func() {
	ctx := context.Background()
	a := static("{apiVersion: v1, kind: ConfigMap, metadata: {name: a1}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: a2}}\n")
	b := static("{apiVersion: v1, kind: Secret, metadata: {name: b1}}\n")

	It("concatenates the objects of its generators in order", func() {
		objects, err := generator.Chain(b, a, b).Generate(ctx, "ns", "n", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(names(objects)).To(Equal([]string{"b1", "a1", "a2", "b1"}))
	})

	It("passes the same namespace, name and parameters to every generator", func() {
		var seen []string
		record := manifests.GeneratorFunc(func(_ context.Context, namespace, name string, p manifests.Parameters) ([]client.Object, error) {
			seen = append(seen, namespace+"/"+name+"/"+p.ToUnstructured()["v"].(string))
			return nil, nil
		})
		_, err := generator.Chain(record, record).Generate(ctx, "ns", "n", manifests.Values{"v": "x"})
		Expect(err).NotTo(HaveOccurred())
		Expect(seen).To(Equal([]string{"ns/n/x", "ns/n/x"}))
	})

	It("returns nothing from no generators", func() {
		Expect(generator.Chain().Generate(ctx, "ns", "n", nil)).To(BeEmpty())
	})

	It("fails as a whole, naming the failing generator", func() {
		cause := errors.New("chart not found")
		objects, err := generator.Chain(a, failing(cause), b).Generate(ctx, "ns", "n", nil)
		Expect(objects).To(BeNil())
		Expect(err).To(MatchError("generator 2 of 3: chart not found"))
		Expect(err).To(MatchError(cause))
	})
})
