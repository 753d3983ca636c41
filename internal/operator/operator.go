package operator

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/generator/source"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Options configure the reference operator.
type Options struct {
	// Name is the operator name: annotation prefix, field owner, finalizer.
	Name string
	// Sources maps a source name (spec.source) to a directory. It may be
	// empty: Components may take charts from repositories (spec.chart) or
	// Flux artifacts (spec.sourceRef).
	Sources map[string]string
	// CacheDir holds fetched charts and artifacts (default: a directory in
	// the system's temporary directory).
	CacheDir string
	// CacheMaxBytes bounds CacheDir (default DefaultCacheMaxBytes).
	CacheMaxBytes int64
	// ChartMaxBytes bounds each download of a chart, a chart's dependency,
	// a repository's index or an artifact, and an artifact's extracted
	// content (default fetch.DefaultMaxSize).
	ChartMaxBytes int64
	// Reconciler tunes the component reconciler.
	Reconciler component.ReconcilerOptions
	// AllowedSources are the patterns of the sources Components may use
	// (--allowed-sources; see package allowlist): empty allows every
	// source, unless a Namespace's allowed-sources annotation narrows it.
	AllowedSources []string
	// Git bounds what spec.git and valuesFrom's Git files fetch.
	Git GitOptions
}

// GitOptions bound the fetches of Git repositories.
type GitOptions struct {
	// MaxSize bounds the pack one fetch receives and the files one tree
	// writes (default git.DefaultMaxSize).
	MaxSize int64
	// MaxObjectSize bounds what one object of a fetch inflates to, and so
	// the memory of a fetch (default git.DefaultMaxObjectSize).
	MaxObjectSize int64
	// HostConcurrency bounds the looks and fetches under way at once per
	// host (default git.DefaultHostConcurrency).
	HostConcurrency int
}

// DefaultCacheMaxBytes bounds the cache of fetched charts and artifacts.
const DefaultCacheMaxBytes = 512 << 20

// operator is the reference operator's state beside its reconciler.
type operator struct {
	client     client.Client
	reconciler *component.Reconciler[*v1alpha1.Component]
	watches    *lazyWatches
}

// Setup loads every source and registers the Component reconciler with mgr.
// A source that cannot be loaded is an error that names it.
func Setup(mgr ctrl.Manager, opts Options) (*component.Reconciler[*v1alpha1.Component], error) {
	r, _, err := SetupWithSources(mgr, opts)
	return r, err
}

// SetupWithSources is Setup, and returns the sources of
// ComponentDefinitions too, which share the Components' resolver.
func SetupWithSources(mgr ctrl.Manager, opts Options) (*component.Reconciler[*v1alpha1.Component], *DefinitionSources, error) {
	if opts.Name == "" {
		return nil, nil, fmt.Errorf("the operator name is empty")
	}
	chartDeps := &chartDependencies{}
	generators, err := loadSources(opts.Name, opts.Sources, true, chartDeps)
	if err != nil {
		return nil, nil, err
	}
	o := &operator{client: mgr.GetClient(), watches: &lazyWatches{cache: mgr.GetCache()}}
	fetcher, gitSource, err := newFetchers(opts, o.repositoryMoved)
	if err != nil {
		return nil, nil, err
	}
	flux := &fluxSources{cache: mgr.GetCache(), mapper: mgr.GetRESTMapper(), watches: o.watches, changed: o.sourceChanged,
		noCrossN: opts.Reconciler.NoCrossNamespaceRefs}
	rd, err := countedReaders(mgr, opts.Reconciler.DefaultServiceAccount)
	if err != nil {
		return nil, nil, err
	}
	gen := newResolver(opts.Name, generators, fetcher, rd, flux, opts.Reconciler.RequeueInterval, chartDeps)
	gen.git = gitSource
	gen.beforeValues = o.watchValuesFrom
	if gen.policy, err = newSourcePolicy(opts, mgr.GetCache()); err != nil {
		return nil, nil, err
	}
	reconcilerOpts := opts.Reconciler
	reconcilerOpts.Filter = func(c component.Component) bool {
		source := c.(*v1alpha1.Component).Spec.Source
		_, served := generators[source]
		return source == "" || served
	}
	o.reconciler = component.NewReconciler[*v1alpha1.Component](opts.Name, gen, reconcilerOpts)
	if err := o.reconciler.SetupWithManager(mgr); err != nil {
		return nil, nil, err
	}
	return o.reconciler, &DefinitionSources{r: gen}, nil
}

// newFetchers returns what fetches charts and artifacts, and what fetches
// Git trees, over one cache; moved is told the Components whose
// repository's refs moved.
func newFetchers(opts Options, moved func([]string)) (*fetch.Fetcher, *git.Source, error) {
	dir, size := opts.CacheDir, opts.CacheMaxBytes
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "wavekit-sources")
	}
	if size <= 0 {
		size = DefaultCacheMaxBytes
	}
	cache, err := fetch.NewCache(dir, size)
	if err != nil {
		return nil, nil, fmt.Errorf("source cache %s: %w", dir, err)
	}
	gitOpts := []git.Option{git.WithOnChange(moved)}
	if opts.Git.MaxSize > 0 {
		gitOpts = append(gitOpts, git.WithMaxSize(opts.Git.MaxSize))
	}
	if opts.Git.MaxObjectSize > 0 {
		gitOpts = append(gitOpts, git.WithMaxObjectSize(opts.Git.MaxObjectSize))
	}
	if opts.Git.HostConcurrency > 0 {
		gitOpts = append(gitOpts, git.WithHostConcurrency(opts.Git.HostConcurrency))
	}
	var fetchOpts []fetch.Option
	if opts.ChartMaxBytes > 0 {
		fetchOpts = append(fetchOpts, fetch.WithMaxSize(opts.ChartMaxBytes))
	}
	return fetch.NewFetcher(cache, fetchOpts...), git.New(cache, gitOpts...), nil
}

// CheckSources loads every source as Setup does, without a cluster, and
// reports each one that cannot be loaded on a line of its own, so that the
// operator can refuse bad --source flags before it connects.
func CheckSources(name string, sources map[string]string) error {
	_, err := loadSources(name, sources, false, &chartDependencies{})
	return err
}

// loadSources detects the generator of every source, a chart's rendering
// with deps; the error names every source that cannot be loaded
// (errors.Join). log says which sources are served.
func loadSources(name string, sources map[string]string, log bool, deps *chartDependencies) (map[string]manifests.Generator, error) {
	generators := map[string]manifests.Generator{}
	var errs []error
	for _, sourceName := range sortedKeys(sources) {
		dir := sources[sourceName]
		gen, kind, err := source.Detect(dir, source.WithOperatorName(name), source.WithHelmOptions(helm.WithDependencies(deps), helm.WithSourceRoot(dir)))
		if err != nil {
			errs = append(errs, fmt.Errorf("--source %s=%s: %w", sourceName, dir, err))
			continue
		}
		digest, err := dirDigest(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("--source %s=%s: %w", sourceName, dir, err))
			continue
		}
		if log {
			ctrl.Log.WithName("operator").Info("serving source", "source", sourceName, "dir", dir, "kind", kind, "digest", digest)
		}
		generators[sourceName] = rooted{Generator: gen, root: dir, identity: "served " + sourceName + " " + digest}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return generators, nil
}

// ParseSources turns NAME=DIR flags into a map; a name may appear once. The
// error names every flag that is not NAME=DIR or repeats a name
// (errors.Join); the map holds the other flags even then, so that they can
// be checked too.
func ParseSources(flags []string) (map[string]string, error) {
	sources := map[string]string{}
	var errs []error
	for _, f := range flags {
		name, dir, ok := strings.Cut(f, "=")
		switch _, dup := sources[name]; {
		case !ok || name == "" || dir == "":
			errs = append(errs, fmt.Errorf("--source %q: want NAME=DIR", f))
		case dup:
			errs = append(errs, fmt.Errorf("--source %q: source %s given twice", f, name))
		default:
			sources[name] = dir
		}
	}
	return sources, errors.Join(errs...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
