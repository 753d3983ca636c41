package helm

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// LoadChartFS loads the chart in directory dir of fsys (use "." for the
// root), for example a chart embedded with //go:embed (write "all:chart" in
// the directive, or Go leaves out _helpers.tpl and .helmignore). Like Helm's directory
// loader it honours the chart's .helmignore and Helm's default ignore rules,
// strips a UTF-8 byte order mark, and loads packaged subcharts (charts/*.tgz)
// as well as subchart directories. Symbolic links are not followed (they are
// irregular files here); use Load for a chart directory on disk.
func LoadChartFS(fsys fs.FS, dir string) (*chart.Chart, error) {
	files, err := readChartFS(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("loading chart %s: %w", dir, err)
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("loading chart %s: %w", dir, err)
	}
	return ch, nil
}

func readChartFS(fsys fs.FS, dir string) ([]*loader.BufferedFile, error) {
	rules, err := ignoreRules(fsys, dir)
	if err != nil {
		return nil, err
	}
	w := &chartWalker{fsys: fsys, dir: dir, rules: rules}
	if err := fs.WalkDir(fsys, dir, w.visit); err != nil {
		return nil, err
	}
	return w.files, nil
}

// chartWalker collects the files of a chart in an fs.FS, as Helm's
// directory loader does.
type chartWalker struct {
	fsys  fs.FS
	dir   string
	rules *ignore.Rules
	files []*loader.BufferedFile
}

func (w *chartWalker) visit(name string, entry fs.DirEntry, err error) error {
	if err != nil || name == w.dir {
		return err
	}
	rel := name
	if w.dir != "." {
		rel = strings.TrimPrefix(name, w.dir+"/")
	}
	info, err := entry.Info()
	if err != nil {
		return err
	}
	switch {
	case w.rules.Ignore(rel, info) && entry.IsDir():
		return fs.SkipDir
	case w.rules.Ignore(rel, info) || entry.IsDir():
		return nil
	}
	file, err := readChartFile(w.fsys, name, rel, info)
	if err != nil {
		return err
	}
	w.files = append(w.files, file)
	return nil
}

// readChartFile reads one regular file of a chart; rel is its name inside
// the chart.
func readChartFile(fsys fs.FS, name, rel string, info fs.FileInfo) (*loader.BufferedFile, error) {
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("cannot load irregular file %s", name)
	}
	if info.Size() > loader.MaxDecompressedFileSize {
		return nil, fmt.Errorf("chart file %s is larger than the maximum file size %d", name, loader.MaxDecompressedFileSize)
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return &loader.BufferedFile{Name: rel, Data: bytes.TrimPrefix(data, utf8BOM)}, nil
}

func ignoreRules(fsys fs.FS, dir string) (*ignore.Rules, error) {
	rules := ignore.Empty()
	data, err := fs.ReadFile(fsys, path.Join(dir, ignore.HelmIgnore))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", ignore.HelmIgnore, err)
	default:
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("parsing %s: %w", ignore.HelmIgnore, err)
		}
	}
	rules.AddDefaults()
	return rules, nil
}

// checkInstallable rejects what `helm template` rejects before rendering:
// an invalid Chart.yaml, a library chart, and, unless they are resolved
// at render time, dependencies that Chart.yaml lists but charts/ does not
// hold.
func checkInstallable(ch *chart.Chart, resolved bool) error {
	if ch == nil || ch.Metadata == nil {
		return errors.New("chart has no metadata (Chart.yaml)")
	}
	if err := ch.Validate(); err != nil {
		return fmt.Errorf("chart %s: %w", ch.Name(), err)
	}
	if ch.Metadata.Type != "" && ch.Metadata.Type != "application" {
		return fmt.Errorf("chart %s: %s charts are not installable", ch.Name(), ch.Metadata.Type)
	}
	if resolved {
		return nil
	}
	var missing []string
	for _, dep := range ch.Metadata.Dependencies {
		if !hasDependency(ch, dep.Name) {
			missing = append(missing, dep.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("chart %s: dependencies listed in Chart.yaml but missing in charts/: %s",
			ch.Name(), strings.Join(missing, ", "))
	}
	return nil
}

func hasDependency(ch *chart.Chart, name string) bool {
	for _, d := range ch.Dependencies() {
		if d.Name() == name {
			return true
		}
	}
	return false
}
