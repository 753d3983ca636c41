package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"helm.sh/helm/v3/pkg/strvals"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/sopsdecrypt"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/generator/kustomize"
	"github.com/wavekit-dev/wavekit/pkg/generator/source"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Options are the flags that say what to render: values and how to
// read the source.
type Options struct {
	valueFiles    []string
	setValues     []string
	kustomizeRoot string
	sopsAgeKey    string
	keys          *sopsdecrypt.Keys // of sopsAgeKey, read once
	dependencies  DependencyOptions
}

// AddFlags adds the flags of values and of the source to cmd.
func (o *Options) AddFlags(cmd *cobra.Command) {
	flags := cmd.Flags()
	flags.StringArrayVarP(&o.valueFiles, "values", "f", nil, "a YAML file of values; repeat to merge several, later files win")
	flags.StringArrayVar(&o.setValues, "set", nil, "a value as key.path=value (Helm syntax, comma-separated pairs allowed); applied after -f")
	flags.StringVar(&o.sopsAgeKey, "sops-age-key", "", "a file of age identities (as age-keygen writes it) that decrypts the SOPS-encrypted objects of the source and -f files")
	flags.StringVar(&o.kustomizeRoot, "kustomize-root", "", "for a kustomization: the directory that holds it and the bases it refers to (default: the source directory)")
	o.dependencies.AddFlags(cmd)
}

// VerifyDependencies makes v's flags (--verify, --key, --keyring) verify
// the dependencies a chart fetches too.
func (o *Options) VerifyDependencies(v *VerifyOptions) {
	o.dependencies.VerifyWith(v)
}

// Source is a loaded source with its values, ready to render.
type Source struct {
	dir          string
	local        Local
	kind         source.Kind
	generator    manifests.Generator
	values       manifests.Values
	options      *Options
	dependencies *Dependencies
}

// Load reads the values and the source in src.Dir; it needs no cluster,
// so bad input fails before anything is contacted. The dependencies a
// chart does not hold are fetched when it is rendered; stderr is told
// which were used.
func (o *Options) Load(src Local, operatorName string, stderr io.Writer, helmOpts ...helm.Option) (*Source, error) {
	values, err := o.values()
	if err != nil {
		return nil, err
	}
	if err := o.dependencies.verify.check(); err != nil {
		return nil, err
	}
	deps := o.dependencies.Resolver(stderr)
	helmOpts = append(deps.HelmOptions(src), helmOpts...)
	opts := []source.Option{source.WithOperatorName(operatorName), source.WithHelmOptions(helmOpts...)}
	if o.kustomizeRoot != "" {
		opts = append(opts, source.WithKustomizeRoot(o.kustomizeRoot))
	}
	g, kind, err := source.Detect(src.Dir, opts...)
	if err != nil {
		return nil, err
	}
	return &Source{dir: src.Dir, local: src, kind: kind, generator: g, values: values, options: o, dependencies: deps}, nil
}

// values merges the -f files in order, then the --set values.
func (o *Options) values() (manifests.Values, error) {
	values := map[string]any{}
	for _, file := range o.valueFiles {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("values file %s: %w", file, err)
		}
		if data, err = o.decryptValuesFile(file, data); err != nil {
			return nil, err
		}
		fromFile, err := decodeValues(data)
		if err != nil {
			return nil, fmt.Errorf("values file %s: %w", file, err)
		}
		values = manifests.MergeValues(values, fromFile)
	}
	for _, set := range o.setValues {
		if err := strvals.ParseInto(set, values); err != nil {
			return nil, fmt.Errorf("--set %s: %w", set, err)
		}
	}
	return values, nil
}

// decodeValues decodes a YAML map of values; an empty document is no values.
func decodeValues(data []byte) (map[string]any, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "))
	}
	if doc == nil {
		return map[string]any{}, nil
	}
	switch doc := doc.(type) {
	case map[string]any:
		return doc, nil
	case []any:
		return nil, fmt.Errorf("expected a map of values, found a list")
	default:
		return nil, fmt.Errorf("expected a map of values, found %v", doc)
	}
}

// RenderContext says for which release and against which cluster (nil: none)
// a source is rendered.
type RenderContext struct {
	Namespace, Name string
	OperatorName    string
	Revision        int64
	FirstApply      bool
	Cluster         *session.Cluster
}

// Render generates the objects of in for rc.
func (in *Source) Render(ctx context.Context, rc RenderContext) ([]client.Object, error) {
	if rc.Cluster != nil {
		ctx = manifests.WithClient(ctx, rc.Cluster.Client)
		ctx = manifests.WithDiscovery(ctx, rc.Cluster.Discovery)
	}
	ctx = manifests.WithComponentInfo(ctx, manifests.ComponentInfo{
		OperatorName: rc.OperatorName, Revision: rc.Revision, FirstApply: rc.FirstApply,
	})
	objects, err := in.generator.Generate(ctx, rc.Namespace, rc.Name, in.values)
	if err != nil {
		return nil, withKustomizeRootHint(fmt.Errorf("rendering %s: %w", in.dir, err))
	}
	if err := in.dependencies.checkVerified(in.local); err != nil {
		return nil, err
	}
	return in.options.decryptObjects(in.dir, objects)
}

// withKustomizeRootHint adds to a kustomization that reached outside its
// source the --kustomize-root that would hold both.
func withKustomizeRootHint(err error) error {
	var outside *kustomize.OutsideSourceError
	if !errors.As(err, &outside) {
		return err
	}
	if _, statErr := os.Stat(outside.Path); statErr != nil {
		return session.Hint(err, fmt.Sprintf("%s does not exist on disk either: check the path in the kustomization", outside.Path))
	}
	return session.Hint(err, fmt.Sprintf("pass --kustomize-root %s (a directory that contains both)", commonDir(outside.Source, outside.Path)))
}

// commonDir is the innermost directory that contains both paths, relative
// when dir is.
func commonDir(dir, path string) string {
	absDir, errDir := filepath.Abs(dir)
	absPath, errPath := filepath.Abs(path)
	if errDir != nil || errPath != nil {
		return "<a directory that contains both>"
	}
	common := absDir
	for common != filepath.Dir(common) && !strings.HasPrefix(absPath, common+string(filepath.Separator)) {
		common = filepath.Dir(common)
	}
	if filepath.IsAbs(dir) {
		return common
	}
	cwd, err := os.Getwd()
	if err != nil {
		return common
	}
	if rel, err := filepath.Rel(cwd, common); err == nil {
		return rel
	}
	return common
}

// AbsPath is dir as an absolute path, or dir when it has none.
func AbsPath(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}
