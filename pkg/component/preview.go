package component

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/settings"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/external"
)

// Preview tells what the next pass of the reconciler would do to component,
// and writes nothing: the same references, target (kubeconfig, impersonated
// service account), render and plan as a pass, with every write sent as a
// server-side dry run (engine.Applier.Preview). The component's status
// gives the inventory; a component that is not in the cluster yet has none,
// so everything is created. Dependencies and suspension are not waited for:
// the preview shows the pass that runs once they allow it.
//
// cfg and scheme are the operator's: Preview connects as the operator does
// and stops its connection before it returns. It is for a reconciler that
// is not set up with a manager (wavekit diff component); it must not be
// called concurrently on one reconciler.
func (r *Reconciler[T]) Preview(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, component T) (engine.Preview, error) {
	return r.preview(ctx, cfg, scheme, component)
}

// preview is Preview.
func (r *core) preview(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, component Component) (engine.Preview, error) {
	if r.client == nil {
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			return engine.Preview{}, fmt.Errorf("connecting to %s: %w", cfg.Host, err)
		}
		r.client, r.apiReader = c, c
	}
	if r.objects == nil {
		r.objects = scheme
	}
	ts := targets.New(cfg, scheme, r.apiReader, r.targetOptions(), nil)
	defer ts.StopAll()
	p := &pass{r: r, component: component, id: types.NamespacedName{Namespace: component.GetNamespace(), Name: component.GetName()},
		settings: settings.Resolve(component, r.settingsDefaults())}
	tg, err := connectForPreview(ctx, ts, component, p.settings)
	if err != nil {
		return engine.Preview{}, fmt.Errorf("connecting to the target cluster: %w", err)
	}
	owner, err := p.owner()
	if err != nil {
		return engine.Preview{}, err
	}
	objects, err := p.render(ctx, tg)
	if err != nil {
		return engine.Preview{}, renderError(err)
	}
	// A preview is a server-side dry run: dependents outside Kubernetes
	// are left out of it.
	if _, objects, err = external.Split(p.r.name, objects, owner.Defaults.WithFallbacks()); err != nil {
		return engine.Preview{}, err
	}
	return tg.Applier.Preview(ctx, owner, objects, component.GetStatus().Inventory)
}

// connectForPreview waits until the component's target is connected: a
// pass gives its worker back while it connects, a preview has nothing else
// to do.
func connectForPreview(ctx context.Context, ts *targets.Set, c Component, s settings.Settings) (*targets.Target, error) {
	for {
		tg, err := ts.For(ctx, c, s)
		if _, retriable := api.AsRetriable(err); err == nil || !retriable || !ts.Connecting(c) {
			return tg, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}
