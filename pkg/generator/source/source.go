package source

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
		return Helm, nil
	}
	for _, name := range kustomizationFiles {
		if names[name] {
			return Kustomize, nil
		}
	}
	if !hasTemplates(dir) {
		return "", fmt.Errorf("source %s: nothing to render: no Chart.yaml, no kustomization file and no *.yaml or *.yml files", dir)
	}
	return Template, nil
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
