package dependency

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// maxDepth bounds how deep dependencies of dependencies go: a file://
// cycle ends there.
const maxDepth = 8

// Resolver brings the dependencies of charts. It is safe for concurrent
// use; one Resolver serves every render of a process, so that what one
// render resolved serves the next (see the package doc).
type Resolver struct {
	fetcher *fetch.Fetcher
	// resolutions remembers what a dependency resolved to.
	resolutions *memo[resolution]
	// names remembers the URL of a repository name, by identity.
	names *memo[nameLookup]
	// loaded keeps charts loaded from the cache, by digest.
	loaded *loadedCharts
}

// NewResolver returns a Resolver that fetches with f.
func NewResolver(f *fetch.Fetcher) *Resolver {
	return &Resolver{fetcher: f, resolutions: newMemo[resolution](memoEntries), names: newMemo[nameLookup](memoEntries),
		loaded: newLoadedCharts(loadedEntries)}
}

// Resolve returns req.Chart with every dependency the render of
// req.Values needs and charts/ does not hold, fetched or loaded, and says
// which versions were used. On error nothing is returned.
func (r *Resolver) Resolve(ctx context.Context, req Request) (Result, error) {
	if req.Chart == nil || req.Chart.Metadata == nil {
		return Result{}, fmt.Errorf("resolving dependencies: no chart")
	}
	if !Missing(req.Chart) {
		return Result{Chart: req.Chart}, nil
	}
	root := req.Root
	if root == "" {
		root = req.Dir
	}
	w := &walk{r: r, access: req.Access}
	top := shallowTree(req.Chart)
	if err := w.level(ctx, node{chart: top, dir: req.Dir, root: root}, req.Values, "", 0); err != nil {
		return Result{}, err
	}
	return Result{Chart: top, Dependencies: w.resolved}, nil
}

// walk is one Resolve.
type walk struct {
	r      *Resolver
	access Access

	mu       sync.Mutex
	resolved []Resolved
	repos    *Repositories // read once, when first needed
	// places says where the charts the walk added are on disk.
	places map[*chart.Chart]place
}

// place is where a chart is on disk: its directory, and what its file://
// dependencies must stay inside.
type place struct{ dir, root string }

// node is a chart of the tree being resolved, and where it is on disk.
type node struct {
	chart *chart.Chart
	// dir is the chart's directory ("" if it is not on disk), root what
	// its file:// dependencies must stay inside.
	dir, root string
	// under names it as a dependency (child, child/grandchild); "" for
	// the chart rendered.
	under string
}

// level adds to n's chart the dependencies it misses that a render with
// vals (its values as Helm reads its dependencies' conditions in them, at
// valuesPath) needs, then does the same for each of its dependencies
// that the render keeps.
func (w *walk) level(ctx context.Context, n node, vals map[string]any, valuesPath string, depth int) error {
	if depth >= maxDepth {
		return &ReferenceError{Dependency: n.under, Reason: fmt.Sprintf("its dependencies nest deeper than %d levels (a file:// cycle?)", maxDepth)}
	}
	if err := w.addMissing(ctx, n, vals, valuesPath); err != nil {
		return err
	}
	cvals, err := chartutil.CoalesceValues(asHelmSees(n.chart), vals)
	if err != nil {
		return valuesError(n, err)
	}
	for _, child := range n.chart.Dependencies() {
		if !Missing(child) {
			continue
		}
		for _, p := range keptUnder(n.chart, child, cvals, valuesPath) {
			at := w.placeOf(child, n)
			sub := node{chart: child, dir: at.dir, root: at.root, under: joinPath(n.under, child.Name())}
			if err := w.level(ctx, sub, cvals, p, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// addMissing fetches or loads the dependencies n's chart misses that the
// render needs, and adds them to it.
func (w *walk) addMissing(ctx context.Context, n node, vals map[string]any, valuesPath string) error {
	absent := missing(n.chart)
	if len(absent) == 0 {
		return nil
	}
	versions, err := w.lockedVersions(ctx, n.chart, n.under)
	if err != nil {
		return err
	}
	cvals, err := chartutil.CoalesceValues(asHelmSees(n.chart), vals)
	if err != nil {
		return valuesError(n, err)
	}
	deps := n.chart.Metadata.Dependencies
	unknown := map[string]bool{}
	for _, i := range absent {
		unknown[deps[i].Name], unknown[nameInValues(deps[i])] = true, true
	}
	var need []int
	for _, i := range absent {
		if enabled(deps[i], cvals, valuesPath, unknown) {
			need = append(need, i)
		}
	}
	added, err := w.bring(ctx, n, need, versions)
	if err != nil {
		return err
	}
	n.chart.AddDependency(added...)
	return nil
}

// keptUnder returns the values paths under which Helm renders child, a
// dependency of parent: one for each entry of parent's Chart.yaml it
// stands for that the values keep (under the entry's alias), or its name
// if no entry lists it.
func keptUnder(parent, child *chart.Chart, cvals chartutil.Values, valuesPath string) []string {
	var paths []string
	listed := false
	for _, d := range parent.Metadata.Dependencies {
		if d == nil || loadedFor(parent, d) != child {
			continue
		}
		listed = true
		if enabled(d, cvals, valuesPath, nil) {
			paths = append(paths, valuesPath+nameInValues(d)+".")
		}
	}
	if !listed {
		paths = append(paths, valuesPath+child.Name()+".")
	}
	return paths
}

// placeOf says where child, a dependency of n's chart, is on disk: where
// the walk brought it from, else in n's charts/ directory.
func (w *walk) placeOf(child *chart.Chart, n node) place {
	w.mu.Lock()
	at, ok := w.places[child]
	w.mu.Unlock()
	if ok {
		return at
	}
	if n.dir == "" {
		return place{root: n.root}
	}
	return place{dir: filepath.Join(n.dir, "charts", child.Name()), root: n.root}
}

// record adds what was resolved to the walk's result.
func (w *walk) record(rs ...Resolved) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.resolved = append(w.resolved, rs...)
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "/" + name
}

// valuesError says that the values of n's chart could not be coalesced.
func valuesError(n node, err error) error {
	if n.under == "" {
		return fmt.Errorf("values: %w", err)
	}
	return fmt.Errorf("values of dependency %s: %w", n.under, err)
}
