package helm

import (
	"context"
	"maps"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// SplitManifests is splitManifests, for the specs.
var SplitManifests = splitManifests

// Collected is the outcome of turning rendered files into objects one way.
type Collected struct {
	Objects []client.Object
	Err     error
}

// CollectBothWays renders as Generate does and turns the engine's output into
// objects twice: as collect does (fast, with fastPath telling whether
// sortRendered took the files) and as collectWithHelm does.
func CollectBothWays(ctx context.Context, g *Generator, namespace, name string, values manifests.Values) (fast, viaHelm Collected, fastPath bool, err error) {
	r, err := g.render(ctx, namespace, name, values)
	if err != nil {
		return fast, viaHelm, false, err
	}
	fast, viaHelm, fastPath = collectBothWays(g, r)
	return fast, viaHelm, fastPath, nil
}

// CollectFilesBothWays is CollectBothWays for rendered files of a chart
// without crds/, with annotation prefix prefix.
func CollectFilesBothWays(files map[string]string, prefix string, isInstall bool) (fast, viaHelm Collected, fastPath bool) {
	g := &Generator{}
	r := rendered{
		chart: &chart.Chart{Metadata: &chart.Metadata{Name: "files"}},
		files: files,
		release: release{prefix: prefix, options: chartutil.ReleaseOptions{
			Name: "rel", Namespace: "ns", Revision: 1, IsInstall: isInstall, IsUpgrade: !isInstall,
		}},
	}
	return collectBothWays(g, r)
}

func collectBothWays(g *Generator, r rendered) (fast, viaHelm Collected, fastPath bool) {
	files := maps.Clone(r.files)
	dropNotes(files)
	_, _, fastPath = sortRendered(files)
	fast.Objects, fast.Err = g.collect(r.chart, maps.Clone(r.files), r.release)
	viaHelm.Objects, viaHelm.Err = g.collectWithHelm(r.chart, maps.Clone(r.files), r.release)
	return fast, viaHelm, fastPath
}
