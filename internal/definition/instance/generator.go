package instance

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Generator renders a bound instance as the Component it stands for, with
// its revision's source pinned; its render inputs are that Component's
// and the revision's.
type Generator struct {
	Sources *operator.DefinitionSources
}

var _ manifests.InputsDeclarer = Generator{}

// Generate renders the instance of the render's context.
func (g Generator) Generate(ctx context.Context, namespace, name string, parameters manifests.Parameters) ([]client.Object, error) {
	ctx, _, err := asComponent(ctx)
	if err != nil {
		return nil, err
	}
	return g.Sources.Generator().Generate(ctx, namespace, name, parameters)
}

// RenderInputs declares what the instance's render reads: its revision,
// and what the Component it stands for reads.
func (g Generator) RenderInputs(ctx context.Context, namespace, name string, parameters manifests.Parameters) (string, error) {
	ctx, pin, err := asComponent(ctx)
	if err != nil {
		return "", err
	}
	declared := ""
	if d, ok := g.Sources.Generator().(manifests.InputsDeclarer); ok {
		if declared, err = d.RenderInputs(ctx, namespace, name, parameters); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("definition %s revision %d\x00%s", pin.Definition, pin.Revision, declared), nil
}

// asComponent is ctx with the instance of its render replaced by the
// Component it stands for, and its revision's source pinned.
func asComponent(ctx context.Context) (context.Context, operator.PinnedSource, error) {
	info, ok := manifests.ComponentInfoFrom(ctx)
	if !ok {
		return nil, operator.PinnedSource{}, fmt.Errorf("no component in the render context")
	}
	i, ok := info.Object.(*Instance)
	if !ok {
		return nil, operator.PinnedSource{}, fmt.Errorf("render context holds %T, not an instance of a defined kind", info.Object)
	}
	if i.bound == nil || i.pin == nil {
		return nil, operator.PinnedSource{}, fmt.Errorf("%s/%s is not bound to a revision of its definition", i.Namespace, i.Name)
	}
	info.Object = i.bound
	ctx = manifests.WithComponentInfo(ctx, info)
	return operator.WithPinnedSource(ctx, *i.pin), *i.pin, nil
}
