package kustomize

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/generator/template"
	"github.com/wavekit-dev/wavekit/pkg/generator/valuesschema"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Generator builds one kustomization of an in-memory source.
type Generator struct {
	// dir is the slash path of the kustomization directory in the source.
	dir string
	// files are copied into the build as they are, by slash path.
	files map[string][]byte
	// templated are rendered into the build, sorted by slash path.
	templated []string
	templates *template.Set
	// kustomization is the generated kustomization file of dir, or nil when
	// dir has one of its own.
	kustomization []byte
	// root is the directory of the source on disk, "" for an fs.FS.
	root string
	// schema is the values.schema.json of dir, or nil.
	schema *valuesschema.Schema
}

var _ manifests.Generator = (*Generator)(nil)

// Option changes how the source is read and rendered.
type Option func(*config)

type config struct {
	patterns        []string
	templateOptions []template.Option
}

// WithoutTemplating copies every file as it is, without rendering templates.
func WithoutTemplating() Option {
	return func(c *config) { c.patterns = nil }
}

// WithTemplatePatterns renders the files whose name (not path) matches one
// of patterns (path.Match syntax) instead of *.yaml, *.yml and Kustomization.
func WithTemplatePatterns(patterns ...string) Option {
	return func(c *config) { c.patterns = patterns }
}

// WithTemplateOptions passes options to the template set, for example
// template.WithMissingKeyError.
func WithTemplateOptions(opts ...template.Option) Option {
	return func(c *config) { c.templateOptions = append(c.templateOptions, opts...) }
}

// NewGenerator reads fsys into memory and returns a generator that builds the
// kustomization in its directory dir (a slash path, "." for the root). Parse
// errors of templates are returned here, not by Generate.
func NewGenerator(fsys fs.FS, dir string, opts ...Option) (*Generator, error) {
	cfg := config{patterns: []string{"*.yaml", "*.yml", "Kustomization"}}
	for _, opt := range opts {
		opt(&cfg)
	}
	src, err := readSource(fsys, path.Clean(dir), cfg.patterns)
	if err != nil {
		return nil, err
	}
	templates, err := template.ParseFS(fsys, append(src.partials, src.templated...), cfg.templateOptions...)
	if err != nil {
		return nil, err
	}
	schema, err := valuesschema.Read(fsys, src.dir)
	if err != nil {
		return nil, err
	}
	return &Generator{
		schema:        schema,
		dir:           src.dir,
		files:         src.files,
		templated:     src.templated,
		templates:     templates,
		kustomization: src.kustomization,
	}, nil
}

// NewGeneratorFromDir is NewGenerator on the directory root of the disk.
func NewGeneratorFromDir(root, dir string, opts ...Option) (*Generator, error) {
	g, err := NewGenerator(os.DirFS(root), dir, opts...)
	if err != nil {
		return nil, fmt.Errorf("kustomize source %s: %w", root, err)
	}
	g.root = root
	return g, nil
}

// Generate checks the values against the values.schema.json of the
// kustomization's directory if it has one, renders the templates of the
// source with the data of template.NewData and builds the kustomization.
func (g *Generator) Generate(ctx context.Context, namespace, name string, parameters manifests.Parameters) ([]client.Object, error) {
	data := template.NewData(ctx, namespace, name, parameters)
	if err := g.schema.Validate(data.Values); err != nil {
		return nil, err
	}
	rendered, err := g.templates.Render(ctx, data, g.templated...)
	if err != nil {
		return nil, err
	}
	files := make(map[string][]byte, len(g.files)+len(rendered)+1)
	for p, data := range g.files {
		files[p] = data
	}
	for i, p := range g.templated {
		files[p] = rendered[i]
	}
	if g.kustomization != nil {
		files[path.Join(g.dir, generatedKustomization)] = g.kustomization
	}
	return build(files, g.dir, g.root)
}
