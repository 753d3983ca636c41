package operator

import (
	"context"
	"fmt"
	"sort"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/generator/source"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Options configure the reference operator.
type Options struct {
	// Name is the operator name: annotation prefix, field owner, finalizer.
	Name string
	// Sources maps a source name (spec.source) to a directory.
	Sources map[string]string
	// Reconciler tunes the component reconciler.
	Reconciler component.ReconcilerOptions
}

// Setup loads every source and registers the Component reconciler with mgr.
// A source that cannot be loaded is an error that names it.
func Setup(mgr ctrl.Manager, opts Options) (*component.Reconciler[*v1alpha1.Component], error) {
	if opts.Name == "" {
		return nil, fmt.Errorf("the operator name is empty")
	}
	if len(opts.Sources) == 0 {
		return nil, fmt.Errorf("no source given: pass at least one --source NAME=DIR")
	}
	generators, err := loadSources(opts.Name, opts.Sources)
	if err != nil {
		return nil, err
	}
	reconcilerOpts := opts.Reconciler
	reconcilerOpts.Filter = func(c component.Component) bool {
		_, served := generators[c.(*v1alpha1.Component).Spec.Source]
		return served
	}
	r := component.NewReconciler[*v1alpha1.Component](opts.Name, bySource(generators), reconcilerOpts)
	if err := r.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	return r, nil
}

func loadSources(name string, sources map[string]string) (map[string]manifests.Generator, error) {
	generators := map[string]manifests.Generator{}
	for _, sourceName := range sortedKeys(sources) {
		dir := sources[sourceName]
		gen, kind, err := source.Detect(dir, source.WithOperatorName(name))
		if err != nil {
			return nil, fmt.Errorf("source %s (%s): %w", sourceName, dir, err)
		}
		ctrl.Log.WithName("operator").Info("serving source", "source", sourceName, "dir", dir, "kind", kind)
		generators[sourceName] = gen
	}
	return generators, nil
}

// bySource renders with the generator named by the Component's spec.source.
func bySource(generators map[string]manifests.Generator) manifests.Generator {
	return manifests.GeneratorFunc(func(ctx context.Context, namespace, name string, p manifests.Parameters) ([]client.Object, error) {
		info, ok := manifests.ComponentInfoFrom(ctx)
		if !ok {
			return nil, fmt.Errorf("no component in the render context")
		}
		c, ok := info.Object.(*v1alpha1.Component)
		if !ok {
			return nil, fmt.Errorf("render context holds %T, not a Component", info.Object)
		}
		gen, ok := generators[c.Spec.Source]
		if !ok {
			return nil, fmt.Errorf("source %q is not served (served: %s)", c.Spec.Source, strings.Join(sortedKeys(generators), ", "))
		}
		return gen.Generate(ctx, namespace, name, p)
	})
}

// ParseSources turns NAME=DIR flags into a map; a name may appear once.
func ParseSources(flags []string) (map[string]string, error) {
	sources := map[string]string{}
	for _, f := range flags {
		name, dir, ok := strings.Cut(f, "=")
		if !ok || name == "" || dir == "" {
			return nil, fmt.Errorf("--source %q: want NAME=DIR", f)
		}
		if _, dup := sources[name]; dup {
			return nil, fmt.Errorf("--source %q: source %s given twice", f, name)
		}
		sources[name] = dir
	}
	return sources, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
