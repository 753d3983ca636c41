package source

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/generator/kustomize"
	"github.com/wavekit-dev/wavekit/pkg/generator/template"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Kind is the kind of source a directory holds.
type Kind string

// Kinds of sources.
const (
	Helm      Kind = "helm"
	Kustomize Kind = "kustomize"
	Template  Kind = "template"
)

// kustomizationFiles are the names kustomize accepts for a kustomization.
var kustomizationFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Detect returns the generator for the source in dir and its kind: a Helm
// chart when dir holds a Chart.yaml, a kustomization when it holds a
// kustomization file, otherwise the Go templates of the directory. A
// directory that is missing, unreadable or holds nothing to render is an
// error that names it.
func Detect(dir string, opts ...Option) (manifests.Generator, Kind, error) {
	cfg := newConfig(opts)
	kind, err := detectKind(dir)
	if err != nil {
		return nil, "", err
	}
	g, err := build(dir, kind, cfg)
	if err != nil {
		return nil, "", err
	}
	return g, kind, nil
}

func detectKind(dir string) (Kind, error) {
	entries, err := readDir(dir)
	if err != nil {
		return "", err
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = !e.IsDir()
	}
	if names["Chart.yaml"] {
		if err := misnamedValues(names); err != nil {
			return "", fmt.Errorf("source %s: %w", dir, err)
		}
		return Helm, nil
	}
	for _, name := range kustomizationFiles {
		if names[name] {
			return Kustomize, nil
		}
	}
	if err := misnamedChart(names); err != nil {
		return "", fmt.Errorf("source %s: %w", dir, err)
	}
	if !hasTemplates(dir) {
		return "", fmt.Errorf("source %s: nothing to render: no Chart.yaml, no kustomization file and no *.yaml or *.yml files", dir)
	}
	return Template, nil
}

// misnamedChart refuses a directory without Chart.yaml and without a
// kustomization file that would otherwise render as Go templates although it
// is meant as a Helm chart: it holds Chart.yaml under another case or as
// .yml (Chart.yml, chart.yaml), or Helm's values file (values.yaml,
// values.yml in any case). names maps file names to whether they are files.
func misnamedChart(names map[string]bool) error {
	for _, name := range sortedFiles(names) {
		lower := strings.ToLower(name)
		if lower == "chart.yaml" || lower == "chart.yml" {
			return fmt.Errorf("found %s: Helm charts need Chart.yaml; rename it", name)
		}
	}
	for _, name := range sortedFiles(names) {
		lower := strings.ToLower(name)
		if lower == "values.yaml" || lower == "values.yml" {
			return fmt.Errorf("found %s but no Chart.yaml: a Helm chart needs Chart.yaml beside its values (a folder of Go templates has no values file)", name)
		}
	}
	return nil
}

// misnamedValues refuses a chart whose default values Helm would not read:
// it has values.yml, or values.yaml in another case, and no values.yaml.
func misnamedValues(names map[string]bool) error {
	if names["values.yaml"] {
		return nil
	}
	for _, name := range sortedFiles(names) {
		lower := strings.ToLower(name)
		if lower == "values.yaml" || lower == "values.yml" {
			return fmt.Errorf("found %s: Helm reads its default values only from values.yaml; rename it", name)
		}
	}
	return nil
}

// sortedFiles are the names of the files (not directories) in names, sorted.
func sortedFiles(names map[string]bool) []string {
	var files []string
	for name, isFile := range names {
		if isFile {
			files = append(files, name)
		}
	}
	slices.Sort(files)
	return files
}

func readDir(dir string) ([]fs.DirEntry, error) {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("source %s: no such directory", dir)
	case err != nil:
		return nil, fmt.Errorf("source %s: %w", dir, err)
	case !info.IsDir():
		return nil, fmt.Errorf("source %s: not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", dir, err)
	}
	return entries, nil
}

// hasTemplates reports whether dir holds a template that renders output: a
// *.yaml or *.yml file whose name starts neither with "." nor with "_",
// outside directories whose name starts with ".".
func hasTemplates(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, entry fs.DirEntry, err error) error {
		if err != nil || found {
			return fs.SkipAll
		}
		name := entry.Name()
		if p != dir && strings.HasPrefix(name, ".") {
			if entry.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(name)
		if !entry.IsDir() && (ext == ".yaml" || ext == ".yml") && !strings.HasPrefix(name, "_") {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

func build(dir string, kind Kind, cfg config) (manifests.Generator, error) {
	switch kind {
	case Helm:
		helmOpts := append([]helm.Option{helm.WithOperatorName(cfg.operatorName)}, cfg.helmOptions...)
		return helm.Load(dir, helmOpts...)
	case Kustomize:
		return buildKustomize(dir, cfg)
	default:
		return template.NewGeneratorFromDir(dir, cfg.templateOptions...)
	}
}

// buildKustomize builds the kustomization in dir; with a root set, the
// source is the root and dir a directory inside it, so that bases outside
// dir can be reached.
func buildKustomize(dir string, cfg config) (manifests.Generator, error) {
	if cfg.kustomizeRoot == "" {
		return kustomize.NewGeneratorFromDir(dir, ".", cfg.kustomizeOptions...)
	}
	rel, err := filepath.Rel(cfg.kustomizeRoot, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("source %s: not inside the kustomize root %s", dir, cfg.kustomizeRoot)
	}
	return kustomize.NewGeneratorFromDir(cfg.kustomizeRoot, filepath.ToSlash(rel), cfg.kustomizeOptions...)
}
