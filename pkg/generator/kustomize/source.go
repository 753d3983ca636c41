package kustomize

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

// generatedKustomization is the name of the kustomization file that
// Generate adds to a directory without one.
const generatedKustomization = "kustomization.yaml"

// source is a kustomize source read into memory and sorted into files to copy,
// templates to render and partials.
type source struct {
	dir           string
	files         map[string][]byte
	templated     []string
	partials      []string
	kustomization []byte
}

// readSource reads fsys, except dot files and directories, and generates a
// kustomization for dir when it has none. patterns select the templates;
// without patterns nothing is rendered.
func readSource(fsys fs.FS, dir string, patterns []string) (*source, error) {
	info, err := fs.Stat(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("kustomization directory: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("kustomization directory %s: not a directory", dir)
	}
	src := &source{dir: dir, files: map[string][]byte{}}
	err = fs.WalkDir(fsys, ".", func(p string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(entry.Name(), ".") {
			if entry.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if entry.IsDir() {
			return nil
		}
		return src.add(fsys, p, patterns)
	})
	if err != nil {
		return nil, fmt.Errorf("reading kustomize source: %w", err)
	}
	slices.Sort(src.templated)
	slices.Sort(src.partials)
	if err := src.generateKustomization(fsys); err != nil {
		return nil, err
	}
	return src, nil
}

// add sorts the file at p into templated, partials or files.
func (s *source) add(fsys fs.FS, p string, patterns []string) error {
	name := path.Base(p)
	if len(patterns) > 0 && path.Ext(name) == ".tpl" {
		s.partials = append(s.partials, p)
		return nil
	}
	for _, pattern := range patterns {
		matched, err := path.Match(pattern, name)
		if err != nil {
			return fmt.Errorf("template pattern %q: %w", pattern, err)
		}
		if matched {
			s.templated = append(s.templated, p)
			return nil
		}
	}
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return err
	}
	s.files[p] = data
	return nil
}

// generateKustomization makes a kustomization for s.dir unless it has one:
// its resources are the directory's *.yaml and *.yml files, sorted, except
// those whose name starts with "_".
func (s *source) generateKustomization(fsys fs.FS) error {
	entries, err := fs.ReadDir(fsys, s.dir)
	if err != nil {
		return fmt.Errorf("reading kustomization directory: %w", err)
	}
	kustomization := types.Kustomization{TypeMeta: types.TypeMeta{
		APIVersion: types.KustomizationVersion,
		Kind:       types.KustomizationKind,
	}}
	for _, entry := range entries {
		name := entry.Name()
		if slices.Contains(konfig.RecognizedKustomizationFileNames(), name) {
			return nil
		}
		ext := path.Ext(name)
		if !entry.IsDir() && (ext == ".yaml" || ext == ".yml") && !strings.HasPrefix(name, "_") && !strings.HasPrefix(name, ".") {
			kustomization.Resources = append(kustomization.Resources, name)
		}
	}
	data, err := yaml.Marshal(kustomization)
	if err != nil {
		return fmt.Errorf("generating a kustomization for %s: %w", s.dir, err)
	}
	s.kustomization = data
	return nil
}
