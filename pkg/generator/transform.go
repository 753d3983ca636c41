package generator

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ParameterTransformer changes the parameters of a generator before it runs.
type ParameterTransformer interface {
	TransformParameters(ctx context.Context, namespace, name string, parameters manifests.Parameters) (manifests.Parameters, error)
}

// ParameterTransformerFunc adapts a function to ParameterTransformer.
type ParameterTransformerFunc func(ctx context.Context, namespace, name string, parameters manifests.Parameters) (manifests.Parameters, error)

// TransformParameters calls f.
func (f ParameterTransformerFunc) TransformParameters(ctx context.Context, namespace, name string, parameters manifests.Parameters) (manifests.Parameters, error) {
	return f(ctx, namespace, name, parameters)
}

// ObjectTransformer changes, adds or removes the objects of a generator. It
// may change the objects it gets in place.
type ObjectTransformer interface {
	TransformObjects(ctx context.Context, namespace, name string, objects []client.Object) ([]client.Object, error)
}

// ObjectTransformerFunc adapts a function to ObjectTransformer.
type ObjectTransformerFunc func(ctx context.Context, namespace, name string, objects []client.Object) ([]client.Object, error)

// TransformObjects calls f.
func (f ObjectTransformerFunc) TransformObjects(ctx context.Context, namespace, name string, objects []client.Object) ([]client.Object, error) {
	return f(ctx, namespace, name, objects)
}

// WithParameterTransformers returns a generator that passes the parameters
// through transformers, in order, and then calls g.
func WithParameterTransformers(g manifests.Generator, transformers ...ParameterTransformer) manifests.Generator {
	return manifests.GeneratorFunc(func(ctx context.Context, namespace, name string, parameters manifests.Parameters) ([]client.Object, error) {
		for i, t := range transformers {
			transformed, err := t.TransformParameters(ctx, namespace, name, parameters)
			if err != nil {
				return nil, fmt.Errorf("parameter transformer %d of %d: %w", i+1, len(transformers), err)
			}
			parameters = transformed
		}
		return g.Generate(ctx, namespace, name, parameters)
	})
}

// WithObjectTransformers returns a generator that calls g and passes its
// objects through transformers, in order.
func WithObjectTransformers(g manifests.Generator, transformers ...ObjectTransformer) manifests.Generator {
	return manifests.GeneratorFunc(func(ctx context.Context, namespace, name string, parameters manifests.Parameters) ([]client.Object, error) {
		objects, err := g.Generate(ctx, namespace, name, parameters)
		if err != nil {
			return nil, err
		}
		for i, t := range transformers {
			objects, err = t.TransformObjects(ctx, namespace, name, objects)
			if err != nil {
				return nil, fmt.Errorf("object transformer %d of %d: %w", i+1, len(transformers), err)
			}
		}
		return objects, nil
	})
}

// DefaultValues returns a ParameterTransformer that deep-merges the
// parameters onto defaults (manifests.MergeValues): a parameter wins over
// its default.
func DefaultValues(defaults map[string]any) ParameterTransformer {
	return ParameterTransformerFunc(func(_ context.Context, _, _ string, parameters manifests.Parameters) (manifests.Parameters, error) {
		var values map[string]any
		if parameters != nil {
			values = parameters.ToUnstructured()
		}
		return manifests.Values(manifests.MergeValues(defaults, values)), nil
	})
}
