package dependency

import (
	"context"

	"golang.org/x/sync/errgroup"
	"helm.sh/helm/v3/pkg/chart"
)

// fetchConcurrency bounds the dependencies of one chart brought at once.
const fetchConcurrency = 4

// brought is a dependency brought for an entry of a chart's Chart.yaml.
type brought struct {
	chart    *chart.Chart // as the caches hold it: not to be changed
	at       place
	resolved Resolved
}

// bring fetches or loads the dependencies need (indexes into the Chart.yaml
// list of n's chart), a few at once, and returns the charts to add to n's
// chart: one a chart name and version, however many entries name it (each
// alias is made of it at render time), each a tree of its own.
func (w *walk) bring(ctx context.Context, n node, need []int, versions []string) ([]*chart.Chart, error) {
	deps := n.chart.Metadata.Dependencies
	got := make([]brought, len(need))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fetchConcurrency)
	for k, i := range need {
		g.Go(func() error {
			b, err := w.bringOne(gctx, n, deps[i], versions[i])
			got[k] = b
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var added []*chart.Chart
	seen := map[string]bool{}
	for _, b := range got {
		w.record(b.resolved)
		key := b.chart.Name() + "@" + b.chart.Metadata.Version
		if seen[key] {
			continue
		}
		seen[key] = true
		c := shallowTree(b.chart)
		w.place(c, b.at)
		added = append(added, c)
	}
	return added, nil
}

// bringOne brings the chart of entry d of n's Chart.yaml, at version (a
// version or a range).
func (w *walk) bringOne(ctx context.Context, n node, d *chart.Dependency, version string) (brought, error) {
	ref, ok := parseReference(d.Repository)
	switch {
	case !ok:
		return brought{}, &ReferenceError{Dependency: dependencyPath(n, d), Repository: d.Repository,
			Reason: "not a repository: want https://, http://, oci://, file://, @name or alias:name"}
	case ref.kind == vendored:
		return brought{}, &ReferenceError{Dependency: dependencyPath(n, d),
			Reason: "Chart.yaml gives it no repository and charts/ does not hold it"}
	case ref.kind == local:
		return w.local(n, d, ref, version)
	}
	return w.remote(ctx, n, d, ref, version)
}

// place records where a chart the walk added is on disk.
func (w *walk) place(c *chart.Chart, at place) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.places == nil {
		w.places = map[*chart.Chart]place{}
	}
	w.places[c] = at
}

// resolvedPath names entry d of n's chart in Resolved.Path: under its
// alias, if it has one.
func resolvedPath(n node, d *chart.Dependency) string {
	return joinPath(n.under, nameInValues(d))
}

// dependencyPath names entry d of n's chart in messages: by its chart's
// name, after its parents'.
func dependencyPath(n node, d *chart.Dependency) string {
	return joinPath(n.under, d.Name)
}
