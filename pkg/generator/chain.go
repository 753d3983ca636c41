package generator

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Chain returns a generator whose objects are those of generators, in order.
// Every generator gets the same context, namespace, name and parameters. If
// one fails, the chain fails with no objects, naming the generator's
// position (from 1).
func Chain(generators ...manifests.Generator) manifests.Generator {
	return manifests.GeneratorFunc(func(ctx context.Context, namespace, name string, parameters manifests.Parameters) ([]client.Object, error) {
		var objects []client.Object
		for i, g := range generators {
			generated, err := g.Generate(ctx, namespace, name, parameters)
			if err != nil {
				return nil, fmt.Errorf("generator %d of %d: %w", i+1, len(generators), err)
			}
			objects = append(objects, generated...)
		}
		return objects, nil
	})
}
