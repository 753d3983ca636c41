package definitions

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli/input"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
	"github.com/wavekit-dev/wavekit/internal/definition/instance"
	"github.com/wavekit-dev/wavekit/internal/version"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/generator/patch"
	"github.com/wavekit-dev/wavekit/pkg/generator/source"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

type renderOptions struct {
	path         string
	dependencies input.DependencyOptions
}

func newRenderCommand(s *session.Session) *cobra.Command {
	o := &renderOptions{}
	cmd := &cobra.Command{
		Use:   "render DEFINITION INSTANCE",
		Short: "Print the objects an instance of a defined kind installs, without a cluster",
		Long: `render prints, as YAML in apply order, the objects the operator would install
for INSTANCE (a YAML file of an object of the kind) under DEFINITION (a YAML
file of its ComponentDefinition), without a cluster: the instance is checked
against the kind's schema as the API server would check it at create (its
message if it is refused), its defaults are applied, its spec becomes values
as the definition maps it, and the source renders them. A chart of a Helm
repository is fetched; a served folder, a Git repository or a Flux source is
read from --path. The dependencies a chart lists but does not hold in
charts/ are fetched as wavekit render fetches them.`,
		Example: `  wavekit definition render databases.yaml orders.yaml
  wavekit definition render websites.yaml home.yaml --path ./web`,
		Args: session.ExactArgs("DEFINITION INSTANCE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), s, args[0], args[1])
		},
	}
	cmd.Flags().StringVar(&o.path, "path", "", "the source's folder, for a served source, a Git repository or a Flux source, or instead of fetching a chart")
	o.dependencies.AddFlags(cmd)
	return cmd
}

func (o *renderOptions) run(ctx context.Context, s *session.Session, defFile, instanceFile string) error {
	def := &v1alpha1.ComponentDefinition{}
	if err := readYAML(defFile, def); err != nil {
		return err
	}
	inst := &unstructured.Unstructured{}
	if err := readYAML(instanceFile, &inst.Object); err != nil {
		return err
	}
	if gvk := inst.GroupVersionKind(); gvk.Kind != def.Spec.Names.Kind || gvk.Group != def.Spec.Group {
		return fmt.Errorf("%s is a %s, not a %s of %s as %s defines", instanceFile, gvk.GroupKind(), def.Spec.Names.Kind, def.Spec.Group, defFile)
	}
	src, err := o.sourceDir(ctx, def)
	if err != nil {
		return err
	}
	defer src.Cleanup()
	spec, err := admitted(src.Dir, def, inst)
	if err != nil {
		return err
	}
	values, err := instance.Values(def.Spec.Values, spec)
	if err != nil {
		return err
	}
	deps := o.dependencies.Resolver(s.Stderr)
	objects, err := renderSource(ctx, s, src.Dir, deps.HelmOptions(src), def, inst, values)
	if err != nil {
		return err
	}
	return writeYAMLStream(s, objects)
}

func readYAML(file string, into any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// sourceDir is the definition's source: --path, or its chart, fetched
// (its file:// dependencies kept inside it).
func (o *renderOptions) sourceDir(ctx context.Context, def *v1alpha1.ComponentDefinition) (input.Local, error) {
	if o.path != "" {
		return input.LocalDir(o.path), nil
	}
	chart := def.Spec.Source.Chart
	if chart == nil {
		return input.Local{}, errors.New("the definition's source is not a chart of a repository: give its folder with --path")
	}
	if chart.SecretRef != nil {
		return input.Local{}, errors.New("the definition's chart needs credentials the CLI does not read: fetch it yourself and give it with --path")
	}
	tmp, err := os.MkdirTemp("", "wavekit-definition-")
	if err != nil {
		return input.Local{}, err
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	cache, err := fetch.NewCache(tmp, fetch.DefaultMaxSize)
	if err != nil {
		cleanup()
		return input.Local{}, err
	}
	fetched, err := fetch.NewFetcher(cache).Chart(ctx, fetch.ChartRequest{Repository: chart.Repository, Name: chart.Name, Version: chart.Version, Insecure: chart.Insecure})
	if err != nil {
		cleanup()
		return input.Local{}, fmt.Errorf("the definition's chart: %w", err)
	}
	return input.Local{Dir: fetched.Dir, Root: fetched.Dir, RootIs: "the chart fetched", Recorded: fetched.URL, Cleanup: cleanup}, nil
}

// admitted is the instance's spec as the API server would store it under
// the kind's schema, or why it would refuse it.
func admitted(dir string, def *v1alpha1.ComponentDefinition, inst *unstructured.Unstructured) (map[string]any, error) {
	schema, err := crdgen.SchemaOf(def, dir)
	if err != nil {
		return nil, err
	}
	checker, err := crdschema.NewChecker(schema.Schema)
	if err != nil {
		return nil, err
	}
	if err := instance.CheckMapping(def.Spec.Values, schema.Schema); err != nil {
		return nil, err
	}
	spec, _ := inst.Object["spec"].(map[string]any)
	out, admission := checker.Admitted(spec)
	if !admission.Admitted() {
		return nil, fmt.Errorf("the API server would refuse %s %s: %s", def.Spec.Names.Kind, inst.GetName(), admission)
	}
	return out, nil
}

// renderSource renders the source in dir (a chart with helmOpts) for the
// instance, with the definition's patches, and sorts the objects as apply
// writes them.
func renderSource(ctx context.Context, s *session.Session, dir string, helmOpts []helm.Option, def *v1alpha1.ComponentDefinition,
	inst *unstructured.Unstructured, values manifests.Values) ([]client.Object, error) {
	helmOpts = append(helmOpts, helm.WithKubeVersion(version.Kubernetes))
	gen, _, err := source.Detect(dir, source.WithOperatorName(s.OperatorName), source.WithHelmOptions(helmOpts...))
	if err != nil {
		return nil, err
	}
	namespace := cmp.Or(inst.GetNamespace(), s.ReleaseNamespace())
	ctx = manifests.WithComponentInfo(ctx, manifests.ComponentInfo{OperatorName: s.OperatorName, Revision: 1, FirstApply: true})
	objects, err := gen.Generate(ctx, namespace, inst.GetName(), values)
	if err != nil {
		return nil, fmt.Errorf("rendering %s: %w", dir, err)
	}
	if len(def.Spec.Instances.Patches) > 0 {
		var patches []patch.Patch
		for _, p := range def.Spec.Instances.Patches {
			patches = append(patches, patch.Patch{Patch: p.Patch, Target: p.Target.DeepCopy()})
		}
		if objects, err = patch.Apply(objects, patches); err != nil {
			return nil, fmt.Errorf("spec.instances.patches: %w", err)
		}
	}
	return engine.CheckForApply(engine.CheckOptions{Prefix: s.OperatorName, Namespace: namespace}, objects)
}

// writeYAMLStream prints objects as YAML documents separated by "---".
func writeYAMLStream(s *session.Session, objects []client.Object) error {
	var out bytes.Buffer
	for i, obj := range objects {
		data, err := encode(obj)
		if err != nil {
			return err
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(data)
	}
	_, err := s.Stdout.Write(out.Bytes())
	return err
}
