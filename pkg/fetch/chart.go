package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	"go.opentelemetry.io/otel/attribute"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/repo"
)

// Chart fetches a chart from a Helm repository (https://… or http://…) or
// an OCI registry (oci://…) and returns its expanded directory. Within
// req.MaxAge of the last look at the repository it makes no request at
// all for a chart already in the cache; after it, one for the index (or
// the tags and the manifest's digest), none for the chart.
func (f *Fetcher) Chart(ctx context.Context, req ChartRequest) (Fetched, error) {
	ctx, span := startSpan(ctx, "fetch chart")
	if span.IsRecording() {
		span.SetAttributes(attribute.String("url.full", redact(req.Repository)), attribute.String("wavekit.chart.name", req.Name),
			attribute.String("wavekit.chart.version", req.Version))
	}
	got, err := f.chart(ctx, req)
	endFetchSpan(span, got, err)
	return got, err
}

func (f *Fetcher) chart(ctx context.Context, req ChartRequest) (Fetched, error) {
	if req.Name == "" || strings.ContainsAny(req.Name, "/:@") || req.Name == "." || req.Name == ".." {
		return Fetched{}, fmt.Errorf("chart name %q: want a plain name", req.Name)
	}
	switch scheme, _, _ := strings.Cut(req.Repository, "://"); scheme {
	case "oci":
		return f.chartFromRegistry(ctx, req)
	case "https", "http":
		return f.chartFromRepository(ctx, req)
	}
	return Fetched{}, fmt.Errorf("chart %s: repository %q: want an https://, http:// or oci:// URL", req.Name, redact(req.Repository))
}

// pickVersion picks the newest version of chart in index that satisfies
// constraint, as Helm does: "" takes the newest stable version, and only
// a constraint with a pre-release admits pre-releases.
func pickVersion(index *repo.IndexFile, chart, constraint, repository string) (*repo.ChartVersion, error) {
	if constraint != "" {
		if _, err := semver.NewConstraint(constraint); err != nil {
			return nil, fmt.Errorf("chart %s: invalid version constraint %q: %w", chart, constraint, err)
		}
	}
	cv, err := index.Get(chart, constraint)
	if errors.Is(err, repo.ErrNoChartName) {
		return nil, &ChartNotFoundError{Chart: chart, Repository: repository}
	}
	if err != nil {
		available := make([]string, 0, len(index.Entries[chart]))
		for _, v := range index.Entries[chart] {
			available = append(available, v.Version)
		}
		return nil, &VersionNotFoundError{Chart: chart, Constraint: constraint, Repository: repository, Available: available}
	}
	return cv, nil
}

// expandChart expands a chart archive into tmp/content/<name>, as Helm
// does (chartutil.Expand refuses paths leaving the chart and bounds the
// sizes), and returns that directory relative to tmp.
func expandChart(tmp string, archive []byte, source string) (string, error) {
	content := filepath.Join(tmp, contentDir)
	if err := chartutil.Expand(content, bytes.NewReader(archive)); err != nil {
		return "", fmt.Errorf("expanding chart %s: %w", source, err)
	}
	dirs, err := os.ReadDir(content)
	if err != nil {
		return "", fmt.Errorf("expanding chart %s: %w", source, err)
	}
	if len(dirs) != 1 || !dirs[0].IsDir() {
		return "", fmt.Errorf("expanding chart %s: want one chart directory, found %d entries", source, len(dirs))
	}
	return path.Join(contentDir, dirs[0].Name()), nil
}

// fetchedChart says what Chart returns for a chart found in e.
func fetchedChart(e entry, source, version string) Fetched {
	return Fetched{Dir: e.root(), URL: source, Revision: version, Digest: e.meta.Digest}
}
