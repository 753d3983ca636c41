package template

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

// maxIncludeDepth bounds nested include and tpl calls, so that a template
// that includes itself fails instead of exhausting the stack.
const maxIncludeDepth = 1000

// Funcs returns the function map of wavekit templates: sprig v3 without env
// and expandenv, plus include, tpl, required, toYaml, fromYaml, toJson,
// fromJson and lookup (see the package documentation). include and tpl run
// templates of t; lookup reads through the client that ctx carries. Install
// the map on t before parsing (any ctx will do for parsing) and again, with
// the rendering ctx, on a clone of t before executing it.
func Funcs(ctx context.Context, t *template.Template) template.FuncMap {
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	runner := &runner{template: t}
	funcs["include"] = runner.include
	funcs["tpl"] = runner.tpl
	funcs["required"] = required
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = fromYAML
	funcs["toJson"] = toJSON
	funcs["fromJson"] = fromJSON
	funcs["lookup"] = lookupFunc(ctx)
	return funcs
}

// runner executes templates of one template set for include and tpl.
type runner struct {
	template *template.Template
	depth    int
}

func (r *runner) include(name string, data any) (string, error) {
	return r.nested(func(out *bytes.Buffer) error {
		return r.template.ExecuteTemplate(out, name, data)
	})
}

func (r *runner) tpl(text string, data any) (string, error) {
	return r.nested(func(out *bytes.Buffer) error {
		clone, err := r.template.Clone()
		if err != nil {
			return fmt.Errorf("cloning templates: %w", err)
		}
		parsed, err := clone.New("tpl").Parse(text)
		if err != nil {
			return err
		}
		return parsed.Execute(out, data)
	})
}

func (r *runner) nested(execute func(out *bytes.Buffer) error) (string, error) {
	if r.depth >= maxIncludeDepth {
		return "", fmt.Errorf("templates nest deeper than %d levels", maxIncludeDepth)
	}
	r.depth++
	defer func() { r.depth-- }()
	var out bytes.Buffer
	if err := execute(&out); err != nil {
		return "", err
	}
	return out.String(), nil
}

func required(message string, value any) (any, error) {
	if value == nil {
		return nil, errors.New(message)
	}
	if s, ok := value.(string); ok && s == "" {
		return nil, errors.New(message)
	}
	return value, nil
}

func toYAML(value any) (string, error) {
	data, err := yaml.Marshal(value)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

func fromYAML(text string) (any, error) {
	var value any
	if err := yaml.Unmarshal([]byte(text), &value); err != nil {
		return nil, err
	}
	return value, nil
}

func toJSON(value any) (string, error) {
	data, err := json.Marshal(value)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

func fromJSON(text string) (any, error) {
	var value any
	if err := json.Unmarshal([]byte(text), &value); err != nil {
		return nil, err
	}
	return value, nil
}
