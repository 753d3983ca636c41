package dependency

import (
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// shallowTree copies the nodes of ch's tree, and nothing else: metadata,
// values and files are shared. A dependency added to a copy, or a copy
// added to another chart, changes no chart of ch's tree, which renders and
// caches share.
func shallowTree(ch *chart.Chart) *chart.Chart {
	out := *ch
	deps := make([]*chart.Chart, 0, len(ch.Dependencies()))
	for _, d := range ch.Dependencies() {
		deps = append(deps, shallowTree(d))
	}
	out.SetDependencies(deps...)
	return &out
}

// missing returns the indexes, in Chart.yaml's list, of the dependencies
// of ch that charts/ does not hold: no loaded dependency has their name,
// as Helm checks it before rendering.
func missing(ch *chart.Chart) []int {
	if ch.Metadata == nil {
		return nil
	}
	var out []int
	for i, d := range ch.Metadata.Dependencies {
		if d != nil && !holds(ch, d.Name) {
			out = append(out, i)
		}
	}
	return out
}

func holds(ch *chart.Chart, name string) bool {
	for _, d := range ch.Dependencies() {
		if d.Name() == name {
			return true
		}
	}
	return false
}

// Missing reports whether ch or a chart of its tree lists a dependency
// it does not hold: whether Resolve may have to bring any.
func Missing(ch *chart.Chart) bool {
	if len(missing(ch)) > 0 {
		return true
	}
	for _, d := range ch.Dependencies() {
		if Missing(d) {
			return true
		}
	}
	return false
}

// asHelmSees returns a copy of ch whose dependencies are what Helm's
// dependency processing makes of them before it coalesces values: each one
// Chart.yaml lists under its alias, once per entry; one it does not list,
// as it is. The dependencies are copies: ch's tree is not changed.
func asHelmSees(ch *chart.Chart) *chart.Chart {
	var deps []*chart.Chart
	for _, existing := range ch.Dependencies() {
		if listedEntry(ch, existing) == nil {
			c := *existing
			deps = append(deps, &c)
		}
	}
	for _, d := range ch.Metadata.Dependencies {
		if d == nil {
			continue
		}
		if existing := loadedFor(ch, d); existing != nil {
			c := *existing
			md := *existing.Metadata
			md.Name = nameInValues(d)
			c.Metadata = &md
			deps = append(deps, &c)
		}
	}
	out := *ch
	out.SetDependencies(deps...)
	return &out
}

// listedEntry returns the first entry of ch's Chart.yaml that the loaded
// dependency dep stands for (its name, a version in the entry's range).
func listedEntry(ch *chart.Chart, dep *chart.Chart) *chart.Dependency {
	for _, d := range ch.Metadata.Dependencies {
		if d != nil && d.Name == dep.Name() && chartutil.IsCompatibleRange(d.Version, dep.Metadata.Version) {
			return d
		}
	}
	return nil
}

// loadedFor returns the loaded dependency of ch that entry d of its
// Chart.yaml stands for, as Helm finds it.
func loadedFor(ch *chart.Chart, d *chart.Dependency) *chart.Chart {
	for _, c := range ch.Dependencies() {
		if c != nil && c.Name() == d.Name && chartutil.IsCompatibleRange(d.Version, c.Metadata.Version) {
			return c
		}
	}
	return nil
}
