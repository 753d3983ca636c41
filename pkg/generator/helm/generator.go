package helm

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Generator renders one Helm chart. It is safe for concurrent use: every
// render works on its own copy of the chart.
type Generator struct {
	chart *chart.Chart
	// dir is the directory the chart was loaded from, if it was.
	dir         string
	opts        options
	defaultCaps *chartutil.Capabilities
	caps        capabilityCache
}

var _ manifests.Generator = (*Generator)(nil)

// New returns a Generator for a loaded chart. It fails for what `helm
// template` refuses before rendering: invalid metadata, a library chart,
// dependencies missing from charts/ (unless WithDependencies brings
// them), or an invalid option.
func New(ch *chart.Chart, opts ...Option) (*Generator, error) {
	return newGenerator(ch, "", opts)
}

func newGenerator(ch *chart.Chart, dir string, opts []Option) (*Generator, error) {
	g := &Generator{chart: ch, dir: dir}
	for _, opt := range opts {
		if err := opt(&g.opts); err != nil {
			return nil, err
		}
	}
	if err := checkInstallable(ch, g.opts.dependencies != nil); err != nil {
		return nil, fmt.Errorf("helm generator: %w", err)
	}
	g.defaultCaps = defaultCapabilities(&g.opts)
	return g, nil
}

// Load returns a Generator for the chart at path: a chart directory or a
// packaged chart (.tgz), loaded with Helm's loader. The file://
// dependencies of a chart directory are relative to it.
func Load(path string, opts ...Option) (*Generator, error) {
	ch, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("helm generator: loading chart %s: %w", path, err)
	}
	dir := ""
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		dir = path
	}
	return newGenerator(ch, dir, opts)
}

// LoadFS returns a Generator for the chart in directory dir of fsys, for
// example an embedded chart (see LoadChartFS).
func LoadFS(fsys fs.FS, dir string, opts ...Option) (*Generator, error) {
	ch, err := LoadChartFS(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("helm generator: %w", err)
	}
	return New(ch, opts...)
}

// Chart returns the chart as loaded. Callers must not change it.
func (g *Generator) Chart() *chart.Chart {
	return g.chart
}

// Generate renders the chart for release name in namespace with the chart's
// default values overlaid by parameters, as `helm template name chart
// --namespace namespace --include-crds -f values` would, and translates crds/
// and hooks into wavekit annotations. On error it returns no objects.
func (g *Generator) Generate(ctx context.Context, namespace, name string, parameters manifests.Parameters) ([]client.Object, error) {
	objects, err := g.generate(ctx, namespace, name, parameters)
	if err != nil {
		return nil, fmt.Errorf("helm chart %s: %w", g.chart.Name(), err)
	}
	return objects, nil
}

func (g *Generator) generate(ctx context.Context, namespace, name string, parameters manifests.Parameters) ([]client.Object, error) {
	r, err := g.render(ctx, namespace, name, parameters)
	if err != nil {
		return nil, err
	}
	return g.collect(r.chart, r.files, r.release)
}

// rendered is the output of Helm's engine for one render.
type rendered struct {
	// chart is the render's copy of the chart, dependencies processed.
	chart   *chart.Chart
	files   map[string]string
	release release
}

func (g *Generator) render(ctx context.Context, namespace, name string, parameters manifests.Parameters) (rendered, error) {
	rel, err := g.releaseFor(ctx, namespace, name)
	if err != nil {
		return rendered{}, err
	}
	values, err := userValues(parameters)
	if err != nil {
		return rendered{}, err
	}
	base, err := g.withDependencies(ctx, values)
	if err != nil {
		return rendered{}, err
	}
	ch := cloneChart(base)
	if err := chartutil.ProcessDependenciesWithMerge(ch, values); err != nil {
		return rendered{}, fmt.Errorf("processing dependencies: %w", err)
	}
	caps, err := g.capabilities(ctx)
	if err != nil {
		return rendered{}, err
	}
	if err := checkKubeVersion(ch, caps); err != nil {
		return rendered{}, err
	}
	top, err := renderValues(ch, values, rel, caps)
	if err != nil {
		return rendered{}, err
	}
	files, err := g.engineFor(ctx).Render(ch, top)
	if err != nil {
		return rendered{}, err
	}
	return rendered{chart: ch, files: files, release: rel}, nil
}

func checkKubeVersion(ch *chart.Chart, caps *chartutil.Capabilities) error {
	constraint := ch.Metadata.KubeVersion
	if constraint == "" || chartutil.IsCompatibleRange(constraint, caps.KubeVersion.String()) {
		return nil
	}
	return fmt.Errorf("chart requires kubeVersion %s, which is incompatible with Kubernetes %s",
		constraint, caps.KubeVersion.String())
}

// engineFor picks Helm's engine with the lookup source of this render (see
// lookup.go).
func (g *Generator) engineFor(ctx context.Context) renderer {
	if reader, ok := manifests.ClientFrom(ctx); ok {
		return providerEngine{provider: readerProvider{ctx: ctx, reader: reader}}
	}
	if g.opts.restConfig != nil {
		return engine.New(g.opts.restConfig)
	}
	return engine.Engine{}
}

type renderer interface {
	Render(*chart.Chart, chartutil.Values) (map[string]string, error)
}

type providerEngine struct {
	provider engine.ClientProvider
}

// Render renders with lookup served by the provider.
func (e providerEngine) Render(ch *chart.Chart, values chartutil.Values) (map[string]string, error) {
	return engine.RenderWithClientProvider(ch, values, e.provider)
}

// notesSuffix marks the rendered files that Helm prints as release notes
// instead of applying them (NOTES.txt of the chart and its subcharts).
const notesSuffix = "NOTES.txt"

// collect sorts the rendered files as Helm's install action does and turns
// them into objects: crds/ first, then the manifests in install order, then
// the hooks that take part in this render. It decodes each document once
// (sortRendered); for a document outside that fast path it goes the way of
// Helm's SortManifests (collectWithHelm), with the same result.
func (g *Generator) collect(ch *chart.Chart, files map[string]string, rel release) ([]client.Object, error) {
	dropNotes(files)
	list, hooks, ok := sortRendered(files)
	if !ok {
		return g.collectWithHelm(ch, files, rel)
	}
	c := g.collector(rel)
	if err := c.addCRDs(ch.CRDObjects()); err != nil {
		return nil, err
	}
	for _, d := range list {
		c.addObjects(d.objects, nil)
	}
	for _, d := range hooks {
		if err := c.addHook(d.hook, d.objects); err != nil {
			return nil, err
		}
	}
	return c.objects, nil
}

// collectWithHelm is collect with releaseutil.SortManifests and
// manifests.DecodeObjects: three YAML parses of every document.
func (g *Generator) collectWithHelm(ch *chart.Chart, files map[string]string, rel release) ([]client.Object, error) {
	dropNotes(files)
	hooks, list, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, fmt.Errorf("splitting rendered manifests: %w", err)
	}
	c := g.collector(rel)
	if err := c.addCRDs(ch.CRDObjects()); err != nil {
		return nil, err
	}
	if err := c.addManifests(list); err != nil {
		return nil, err
	}
	if err := c.addHooks(hooks); err != nil {
		return nil, err
	}
	return c.objects, nil
}

// dropNotes removes the release notes from the rendered files.
func dropNotes(files map[string]string) {
	for name := range files {
		if strings.HasSuffix(name, notesSuffix) {
			delete(files, name)
		}
	}
}

func (g *Generator) collector(rel release) *collector {
	return &collector{prefix: rel.prefix, isInstall: rel.options.IsInstall, dropDeleteHooks: g.opts.dropDeleteHooks}
}
