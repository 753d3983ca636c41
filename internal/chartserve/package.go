package chartserve

import (
	"fmt"
	"os"
	"path/filepath"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/repo"
)

// ChartDirs returns the charts of dir: dir itself if it holds Chart.yaml,
// else every directory directly under it that does. A dir with neither is
// an error that names it.
func ChartDirs(dir string) ([]string, error) {
	if isChart(dir) {
		return []string{dir}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the charts of %s: %w", dir, err)
	}
	var charts []string
	for _, e := range entries {
		if sub := filepath.Join(dir, e.Name()); e.IsDir() && isChart(sub) {
			charts = append(charts, sub)
		}
	}
	if len(charts) == 0 {
		return nil, fmt.Errorf("%s holds no chart: neither it nor a directory directly under it has a %s", dir, chartutil.ChartfileName)
	}
	return charts, nil
}

func isChart(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, chartutil.ChartfileName))
	return err == nil && info.Mode().IsRegular()
}

// Package packages every chart of dirs (see ChartDirs) into out as
// <name>-<version>.tgz, as helm package does, and writes out/index.yaml
// with URLs relative to the repository, as helm repo index does. Two
// charts of the same name and version are an error naming both.
func Package(out string, dirs ...string) error {
	written := map[string]string{} // archive → chart directory
	for _, dir := range dirs {
		charts, err := ChartDirs(dir)
		if err != nil {
			return err
		}
		for _, chartDir := range charts {
			if err := packageChart(out, chartDir, written); err != nil {
				return err
			}
		}
	}
	return writeIndex(out)
}

// packageChart loads the chart of dir, as helm package does (.helmignore
// applies), and saves it into out unless another chart wrote the same
// archive.
func packageChart(out, dir string, written map[string]string) error {
	ch, err := loader.LoadDir(dir)
	if err != nil {
		return fmt.Errorf("loading chart %s: %w", dir, err)
	}
	if err := ch.Validate(); err != nil {
		return fmt.Errorf("chart %s: %w", dir, err)
	}
	name := fmt.Sprintf("%s-%s.tgz", ch.Name(), ch.Metadata.Version)
	if other, ok := written[name]; ok {
		return fmt.Errorf("charts %s and %s are both %s %s: give each chart its own name or version", other, dir, ch.Name(), ch.Metadata.Version)
	}
	if _, err := chartutil.Save(ch, out); err != nil {
		return fmt.Errorf("packaging chart %s: %w", dir, err)
	}
	written[name] = dir
	return nil
}

// writeIndex writes out/index.yaml from the archives in out.
func writeIndex(out string) error {
	index, err := repo.IndexDirectory(out, "")
	if err != nil {
		return fmt.Errorf("indexing the charts in %s: %w", out, err)
	}
	index.SortEntries()
	tmp := filepath.Join(out, ".index.yaml")
	if err := index.WriteFile(tmp, 0o644); err != nil {
		return fmt.Errorf("writing the index of %s: %w", out, err)
	}
	if err := os.Rename(tmp, filepath.Join(out, "index.yaml")); err != nil {
		return fmt.Errorf("writing the index of %s: %w", out, err)
	}
	return nil
}
