package component

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// withExternals takes the external dependents out of objects and, where
// the component has some (rendered, or recorded from before), hands them
// to the engine pass through owner.Externals.
func (p *pass) withExternals(tg *targets.Target, owner *engine.Owner, objects []client.Object) ([]client.Object, error) {
	deps, objects, err := external.Split(p.r.name, objects, owner.Defaults.WithFallbacks())
	if err != nil {
		return nil, err
	}
	ext, err := p.externalPass(tg, *owner, deps)
	if err != nil || ext == nil {
		return objects, err
	}
	p.externals = ext
	ext.Record()
	owner.Externals = ext
	return objects, nil
}

// externalPass is the Pass of the component's dependents (deps rendered,
// none on deletion), nil when it has none.
func (p *pass) externalPass(tg *targets.Target, owner engine.Owner, deps []external.Dependent) (*external.Pass, error) {
	status := p.component.GetStatus()
	if len(deps) == 0 && len(status.Externals) == 0 {
		return nil, nil
	}
	m := p.r.externals
	if m == nil {
		return nil, noProviders(deps, status.Externals)
	}
	return m.Pass(external.PassConfig{
		Component: p.id, Namespace: owner.Namespace, Client: tg.Client,
		OwnerLabel: manifests.Key(p.r.name, manifests.LabelOwnerID), OwnerID: owner.ID,
		Dependents: deps, Items: &status.Externals, Drift: owner.Drift.Mode,
		Save: func(ctx context.Context) error { return p.writeAhead(ctx, status.Inventory) },
	})
}

// writeAheadWithExternals writes the inventory ahead of its objects, and
// with it the external dependents the pass recorded.
func (p *pass) writeAheadWithExternals(ctx context.Context, items []manifests.InventoryItem) error {
	if p.externals != nil {
		p.externals.Saved()
	}
	return p.writeAhead(ctx, items)
}

// noProviders says that the component has external dependents, rendered
// or recorded from before, and the reconciler no provider for them.
func noProviders(deps []external.Dependent, recorded []manifests.ExternalItem) error {
	kind, name := "", ""
	if len(deps) > 0 {
		kind, name = deps[0].Kind, deps[0].Name
	} else {
		kind, name = recorded[0].Kind, recorded[0].Name
	}
	return &manifests.UserError{Err: fmt.Errorf("the component has external dependents (%s %s) and this operator registers no provider for them", kind, name)}
}
