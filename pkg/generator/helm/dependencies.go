package helm

import (
	"context"

	"helm.sh/helm/v3/pkg/chart"
)

// DependencyResolver brings, for one render, the dependencies a chart
// lists in its Chart.yaml but does not hold in charts/: what `helm
// dependency build` does before `helm template`. Package
// pkg/fetch/dependency resolves them from Helm repositories, OCI
// registries and file:// paths.
type DependencyResolver interface {
	// ResolveDependencies returns req.Chart with the dependencies the
	// render of req.Values needs added. The Generator clones what it gets
	// before Helm's dependency processing changes it, and never changes
	// req.Chart.
	ResolveDependencies(ctx context.Context, req DependencyRequest) (*chart.Chart, error)
}

// DependencyRequest is the chart of one render, and its values.
type DependencyRequest struct {
	// Chart is the chart as loaded; read it, do not change it.
	Chart *chart.Chart
	// Dir is the directory the chart was loaded from (Load's path), ""
	// for a packaged or embedded chart.
	Dir string
	// Root is what the chart's file:// dependencies must stay inside
	// (WithSourceRoot); "" means Dir.
	Root string
	// Values are the render's values, before Helm coalesces them with
	// the chart's defaults.
	Values map[string]any
}

// WithDependencies makes the Generator bring, at each render, the
// dependencies the chart lists in Chart.yaml but does not hold in
// charts/, with r: New then accepts such a chart. A dependency the
// render's values turn off (its condition or tags) is not asked for.
func WithDependencies(r DependencyResolver) Option {
	return func(o *options) error {
		o.dependencies = r
		return nil
	}
}

// WithSourceRoot says which directory the chart's source is (a
// repository, a folder): file:// dependencies may not leave it. Default:
// the chart's own directory.
func WithSourceRoot(dir string) Option {
	return func(o *options) error {
		o.sourceRoot = dir
		return nil
	}
}

// withDependencies returns the chart of a render with values: g's chart,
// or with a DependencyResolver, what it makes of it.
func (g *Generator) withDependencies(ctx context.Context, values map[string]any) (*chart.Chart, error) {
	if g.opts.dependencies == nil {
		return g.chart, nil
	}
	return g.opts.dependencies.ResolveDependencies(ctx, DependencyRequest{Chart: g.chart, Dir: g.dir, Root: g.opts.sourceRoot, Values: values})
}
