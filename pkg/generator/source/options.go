package source

import (
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/generator/kustomize"
	"github.com/wavekit-dev/wavekit/pkg/generator/template"
)

// Option changes how Detect builds the generator.
type Option func(*config)

type config struct {
	operatorName     string
	kustomizeRoot    string
	helmOptions      []helm.Option
	kustomizeOptions []kustomize.Option
	templateOptions  []template.Option
}

func newConfig(opts []Option) config {
	var cfg config
	for _, opt := range opts {
		opt(&cfg)
	}
	return cfg
}

// WithOperatorName gives a Helm chart the operator name (the annotation
// prefix) for renders whose context carries none.
func WithOperatorName(name string) Option {
	return func(c *config) { c.operatorName = name }
}

// WithHelmOptions passes options to the Helm generator, after the operator name.
func WithHelmOptions(opts ...helm.Option) Option {
	return func(c *config) { c.helmOptions = append(c.helmOptions, opts...) }
}

// WithKustomizeOptions passes options to the kustomize generator.
func WithKustomizeOptions(opts ...kustomize.Option) Option {
	return func(c *config) { c.kustomizeOptions = append(c.kustomizeOptions, opts...) }
}

// WithTemplateOptions passes options to the template generator.
func WithTemplateOptions(opts ...template.Option) Option {
	return func(c *config) { c.templateOptions = append(c.templateOptions, opts...) }
}

// WithKustomizeRoot makes root the source of a kustomization instead of its
// own directory, so that it may refer to bases elsewhere under root (for
// example the root of a repository for "overlays/prod"). The directory given
// to Detect must be inside root.
func WithKustomizeRoot(root string) Option {
	return func(c *config) { c.kustomizeRoot = root }
}
