package operator

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// Preview tells what the reference operator's next pass of c would do, and
// writes nothing. It renders with the operator's own resolver (spec.source
// from opts.Sources, spec.chart, spec.sourceRef, valuesFrom read as the
// Component's service account, spec.patches) and plans with the operator's
// own reconciler (component.Reconciler.Preview), connected with cfg: the
// code a pass runs, with every write a server-side dry run. scheme must
// hold the Kubernetes types and v1alpha1. A non-empty artifactDir stands for
// the artifact of spec.sourceRef (a local checkout, as flux diff
// kustomization --path): spec.path is read inside it, and the Flux source is
// not read.
func Preview(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, opts Options, c *v1alpha1.Component, artifactDir string) (engine.Preview, error) {
	sources, stop, err := PreviewSources(ctx, cfg, scheme, opts, artifactDir)
	if err != nil {
		return engine.Preview{}, err
	}
	defer stop()
	r := component.NewReconciler[*v1alpha1.Component](opts.Name, sources.r, opts.Reconciler)
	return r.Preview(ctx, cfg, scheme, c)
}

// PreviewSources makes the resolver a preview renders with, as Preview
// describes it, for a preview of Components (its Generator) or of the
// instances of defined kinds. stop ends the informers it starts.
func PreviewSources(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, opts Options, artifactDir string) (sources *DefinitionSources, stop func(), err error) {
	if opts.Name == "" {
		return nil, nil, fmt.Errorf("the operator name is empty")
	}
	chartDeps := &chartDependencies{}
	generators, err := loadSources(opts.Name, opts.Sources, false, chartDeps)
	if err != nil {
		return nil, nil, err
	}
	fetcher, gitSource, err := newFetchers(opts, nil)
	if err != nil {
		return nil, nil, err
	}
	own, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to %s: %w", cfg.Host, err)
	}
	informers, err := cache.New(cfg, cache.Options{Scheme: scheme, Mapper: own.RESTMapper()})
	if err != nil {
		return nil, nil, fmt.Errorf("watching %s: %w", cfg.Host, err)
	}
	ctx, stop = context.WithCancel(ctx)
	go func() { _ = informers.Start(ctx) }() // informers of Flux sources, started on first use
	flux := &fluxSources{cache: informers, mapper: own.RESTMapper(), watches: &lazyWatches{cache: informers},
		changed: func(string, types.NamespacedName) {}, noCrossN: opts.Reconciler.NoCrossNamespaceRefs}
	rd := &readers{config: cfg, scheme: scheme, own: own, defaultSA: opts.Reconciler.DefaultServiceAccount}
	gen := newResolver(opts.Name, generators, fetcher, rd, flux, opts.Reconciler.RequeueInterval, chartDeps)
	gen.git = gitSource
	gen.localArtifact = artifactDir
	if gen.policy, err = newSourcePolicy(opts, informers); err != nil {
		stop()
		return nil, nil, err
	}
	return &DefinitionSources{r: gen}, stop, nil
}
