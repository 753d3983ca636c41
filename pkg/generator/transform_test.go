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

var _ = Describe("Transformers", func() {
	ctx := context.Background()

	It("passes the parameters through parameter transformers in order", func() {
		var got manifests.Parameters
		record := manifests.GeneratorFunc(func(_ context.Context, _, _ string, p manifests.Parameters) ([]client.Object, error) {
			got = p
			return nil, nil
		})
		appendX := generator.ParameterTransformerFunc(func(_ context.Context, namespace, name string, p manifests.Parameters) (manifests.Parameters, error) {
			values := p.ToUnstructured()
			values["trail"] = values["trail"].(string) + "x" + namespace + name
			return manifests.Values(values), nil
		})
		g := generator.WithParameterTransformers(record,
			generator.DefaultValues(map[string]any{"trail": ">", "nested": map[string]any{"a": 1, "b": 2}}),
			appendX, appendX)
		_, err := g.Generate(ctx, "ns", "n", manifests.Values{"nested": map[string]any{"b": 3}})
		Expect(err).NotTo(HaveOccurred())
		Expect(got.ToUnstructured()).To(Equal(map[string]any{
			"trail":  ">xnsnxnsn",
			"nested": map[string]any{"a": 1, "b": 3},
		}))
	})

	It("applies defaults to nil parameters", func() {
		var got manifests.Parameters
		record := manifests.GeneratorFunc(func(_ context.Context, _, _ string, p manifests.Parameters) ([]client.Object, error) {
			got = p
			return nil, nil
		})
		_, err := generator.WithParameterTransformers(record, generator.DefaultValues(map[string]any{"a": "b"})).Generate(ctx, "ns", "n", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.ToUnstructured()).To(Equal(map[string]any{"a": "b"}))
	})

	It("fails without calling the generator when a parameter transformer fails", func() {
		called := false
		g := generator.WithParameterTransformers(
			manifests.GeneratorFunc(func(context.Context, string, string, manifests.Parameters) ([]client.Object, error) {
				called = true
				return nil, nil
			}),
			generator.DefaultValues(nil),
			generator.ParameterTransformerFunc(func(context.Context, string, string, manifests.Parameters) (manifests.Parameters, error) {
				return nil, errors.New("spec.size must be positive")
			}))
		objects, err := g.Generate(ctx, "ns", "n", nil)
		Expect(objects).To(BeNil())
		Expect(err).To(MatchError("parameter transformer 2 of 2: spec.size must be positive"))
		Expect(called).To(BeFalse())
	})

	It("passes the objects through object transformers in order", func() {
		g := generator.WithObjectTransformers(
			static("{apiVersion: v1, kind: ConfigMap, metadata: {name: a, labels: {keep: me, tier: x}}}\n---\n{apiVersion: v1, kind: Secret, metadata: {name: b}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n"),
			generator.AddLabels(map[string]string{"tier": "web", "team": "shop"}),
			generator.AddAnnotations(map[string]string{"note": "generated"}),
			generator.DropObjects(func(obj client.Object) bool { return obj.GetName() == "c" }),
			generator.ObjectTransformerFunc(func(_ context.Context, namespace, name string, objs []client.Object) ([]client.Object, error) {
				for _, obj := range objs {
					obj.SetNamespace(namespace)
					obj.SetName(name + "-" + obj.GetName())
				}
				return objs, nil
			}),
		)
		objs, err := g.Generate(ctx, "shop", "web", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(yamlOf(objs)).To(Equal(yamlOf(objects(`
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-a
  namespace: shop
  labels: {keep: me, tier: web, team: shop}
  annotations: {note: generated}
---
apiVersion: v1
kind: Secret
metadata:
  name: web-b
  namespace: shop
  labels: {tier: web, team: shop}
  annotations: {note: generated}
`))))
	})

	It("fails as a whole when the generator or an object transformer fails", func() {
		objs, err := generator.WithObjectTransformers(failing(errors.New("render failed")), generator.AddLabels(nil)).Generate(ctx, "ns", "n", nil)
		Expect(objs).To(BeNil())
		Expect(err).To(MatchError("render failed"))

		objs, err = generator.WithObjectTransformers(static("{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}"),
			generator.AddLabels(map[string]string{"a": "b"}),
			generator.ObjectTransformerFunc(func(context.Context, string, string, []client.Object) ([]client.Object, error) {
				return nil, errors.New("too many objects")
			})).Generate(ctx, "ns", "n", nil)
		Expect(objs).To(BeNil())
		Expect(err).To(MatchError("object transformer 2 of 2: too many objects"))
	})
})
