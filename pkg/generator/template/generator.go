package template

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/generator/valuesschema"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Generator renders the template files of a directory or fs.FS.
type Generator struct {
	templates *Set
	outputs   []string
	// schema is the source's values.schema.json, or nil.
	schema *valuesschema.Schema
}

var _ manifests.Generator = (*Generator)(nil)

// NewGenerator parses the template files of fsys (see the package
// documentation for which files count) and returns a generator that renders
// them. Parse errors are returned here, not by Generate.
func NewGenerator(fsys fs.FS, opts ...Option) (*Generator, error) {
	paths, err := templateFiles(fsys)
	if err != nil {
		return nil, err
	}
	templates, err := ParseFS(fsys, paths, opts...)
	if err != nil {
		return nil, err
	}
	schema, err := valuesschema.Read(fsys, ".")
	if err != nil {
		return nil, err
	}
	g := &Generator{templates: templates, schema: schema}
	for _, p := range paths {
		if !isPartial(p) {
			g.outputs = append(g.outputs, p)
		}
	}
	return g, nil
}

// NewGeneratorFromDir is NewGenerator on the directory dir.
func NewGeneratorFromDir(dir string, opts ...Option) (*Generator, error) {
	g, err := NewGenerator(os.DirFS(dir), opts...)
	if err != nil {
		return nil, fmt.Errorf("templates in %s: %w", dir, err)
	}
	return g, nil
}

// Generate checks the values against values.schema.json if the source has
// one, renders the templates with the data of NewData and decodes their
// output into objects, file by file in lexical order.
func (g *Generator) Generate(ctx context.Context, namespace, name string, parameters manifests.Parameters) ([]client.Object, error) {
	data := NewData(ctx, namespace, name, parameters)
	if err := g.schema.Validate(data.Values); err != nil {
		return nil, err
	}
	rendered, err := g.templates.Render(ctx, data, g.outputs...)
	if err != nil {
		return nil, err
	}
	var objects []client.Object
	for i, output := range rendered {
		decoded, err := manifests.DecodeObjects(g.outputs[i], output)
		if err != nil {
			return nil, err
		}
		for _, obj := range decoded {
			objects = append(objects, obj)
		}
	}
	return objects, nil
}

// isTemplateFile reports whether the file at path is parsed as a template:
// a *.yaml, *.yml or *.tpl file.
func isTemplateFile(p string) bool {
	switch path.Ext(p) {
	case ".yaml", ".yml", ".tpl":
		return true
	}
	return false
}

// isPartial reports whether the template file at path produces no output of
// its own: a *.tpl file or a file whose name starts with "_".
func isPartial(p string) bool {
	return path.Ext(p) == ".tpl" || strings.HasPrefix(path.Base(p), "_")
}

// templateFiles returns the paths of the template files of fsys, sorted.
func templateFiles(fsys fs.FS) ([]string, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(entry.Name(), ".") {
			if entry.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !entry.IsDir() && isTemplateFile(p) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing template files: %w", err)
	}
	sort.Strings(paths)
	return paths, nil
}
