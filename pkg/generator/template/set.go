package template

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"text/template"
)

// Option changes how templates are parsed and rendered.
type Option func(*config)

type config struct {
	missingKeyError bool
	funcs           template.FuncMap
}

// WithMissingKeyError makes a missing map key an execution error instead of
// an empty value.
func WithMissingKeyError() Option {
	return func(c *config) { c.missingKeyError = true }
}

// WithFuncs adds functions to the templates, or replaces those of Funcs with
// the same name.
func WithFuncs(funcs template.FuncMap) Option {
	return func(c *config) {
		for name, fn := range funcs {
			c.funcs[name] = fn
		}
	}
}

// Set is a parsed set of template files that share their definitions.
type Set struct {
	root   *template.Template
	config config
}

// ParseFS reads the files at paths (slash paths in fsys) and parses each as
// the template named by its path.
func ParseFS(fsys fs.FS, paths []string, opts ...Option) (*Set, error) {
	cfg := config{funcs: template.FuncMap{}}
	for _, opt := range opts {
		opt(&cfg)
	}
	s := &Set{root: template.New(""), config: cfg}
	s.root.Option(s.missingKeyOption())
	s.bind(context.Background(), s.root)
	for _, path := range paths {
		text, err := fs.ReadFile(fsys, path)
		if err != nil {
			return nil, fmt.Errorf("reading template %s: %w", path, err)
		}
		if _, err := s.root.New(path).Parse(string(text)); err != nil {
			return nil, fmt.Errorf("parsing template %s: %w", path, err)
		}
	}
	return s, nil
}

// Render executes the templates named names with data and returns their
// outputs in the same order. lookup reads through the client that ctx
// carries. It is safe to call Render concurrently.
func (s *Set) Render(ctx context.Context, data Data, names ...string) ([][]byte, error) {
	t, err := s.root.Clone()
	if err != nil {
		return nil, fmt.Errorf("cloning templates: %w", err)
	}
	s.bind(ctx, t)
	outputs := make([][]byte, 0, len(names))
	for _, name := range names {
		var out bytes.Buffer
		if err := t.ExecuteTemplate(&out, name, data); err != nil {
			return nil, fmt.Errorf("rendering %s: %w", name, err)
		}
		outputs = append(outputs, s.clean(out.Bytes()))
	}
	return outputs, nil
}

func (s *Set) bind(ctx context.Context, t *template.Template) {
	t.Funcs(Funcs(ctx, t)).Funcs(s.config.funcs)
}

func (s *Set) missingKeyOption() string {
	if s.config.missingKeyError {
		return "missingkey=error"
	}
	return "missingkey=zero"
}

// clean removes the "<no value>" that text/template prints for a missing key,
// as Helm does, unless missing keys are errors.
func (s *Set) clean(output []byte) []byte {
	if s.config.missingKeyError {
		return output
	}
	return bytes.ReplaceAll(output, []byte("<no value>"), nil)
}
