package releases

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/cli/input"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/version"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
)

type renderOptions struct {
	input       input.Options
	git         input.GitOptions
	verify      input.VerifyOptions
	name        string
	kubeVersion string
	validate    bool
	output      string
}

// NewRenderCommand is render: a source's objects in apply order, offline or
// checked against the cluster with --validate.
func NewRenderCommand(s *session.Session) *cobra.Command {
	o := &renderOptions{}
	cmd := &cobra.Command{
		Use:   "render SOURCE",
		Short: "Print the objects of a source as YAML, in apply order",
		Long: `render prints the objects that SOURCE renders (a Helm chart, a kustomization or
a folder of Go templates) as a YAML stream, in the order apply writes them:
by apply-order wave, then by kind stage (namespaces, definitions,
configuration, workloads, API services, instances of the source's own CRDs).
Delete hooks, which run only when the release is deleted, come last.

render checks the objects with the very code apply runs before its first
write, and refuses what apply refuses with the same message and exit code 1:
missing names, generateName, duplicates, invalid annotation values, unknown
keys under the --operator-name prefix (with the nearest known key), orders
that could never work, a bad release or operator name.

By default render needs no cluster, as helm template: lookup returns nothing,
Helm's capabilities are those of the Kubernetes version wavekit is built
against (see wavekit version), or of --kube-version, and the scope of a kind
comes from the built-in kinds and the CRDs among the objects; an object of a
kind known to neither keeps its namespace as rendered. --validate uses the
cluster of the kubeconfig: Helm's .Capabilities and lookup, the kinds it
serves (a kind neither served nor defined by a CRD among the objects is
refused, as apply refuses it), and a server-side dry run of every write apply
would make (schema, admission, adoption of existing objects). --validate
writes nothing.

The dependencies a chart lists in Chart.yaml but does not hold in charts/
are fetched as helm dependency build fetches them: @name, alias:name and the
repositories' credentials from Helm's repositories file (--repository-config),
--plain-http for OCI registries, file:// paths inside the chart's Git work
tree, the archives kept in --chart-cache for later runs. Each one used is
printed on stderr; --verify checks them (--keyring for Helm repositories,
--key for OCI registries).

-o yaml (the default) prints a stream of YAML documents separated by "---";
-o json prints one JSON document, a v1 List whose items are the objects in the
same order, as kubectl get -o json does. Both can be given to kubectl apply -f.`,
		Example: `  # render a chart for release demo with values, without a cluster
  wavekit render ./chart --name demo -f values.yaml --set image.tag=v2

  # render a kustomization and check it against the current cluster, writing nothing
  wavekit render ./overlays/prod -n prod --validate

  # the same objects as one JSON v1 List, as kubectl get -o json prints them
  wavekit render ./chart -o json | jq '.items[].metadata.name'`,
		Args: session.ExactArgs("SOURCE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd, s, args[0])
		},
	}
	o.input.AddFlags(cmd)
	o.git.AddFlags(cmd)
	o.verify.AddFlags(cmd)
	o.input.VerifyDependencies(&o.verify)
	cmd.Flags().StringVar(&o.name, "name", "", "the release name the source is rendered for (default: the source directory's name)")
	cmd.Flags().StringVar(&o.kubeVersion, "kube-version", "", "the Kubernetes version to render for without a cluster (default: the one wavekit is built against, "+version.Kubernetes+")")
	cmd.Flags().StringVarP(&o.output, "output", "o", renderYAML, "output format: yaml (a stream of documents) or json (a v1 List)")
	cmd.Flags().BoolVar(&o.validate, "validate", false, "check against the cluster without writing: its capabilities and lookup, the kinds it serves, and a server-side dry run of every write")
	return cmd
}

func (o *renderOptions) run(cmd *cobra.Command, s *session.Session, dir string) error {
	if o.output != renderYAML && o.output != renderJSON {
		return fmt.Errorf("--output %s: unknown format (use yaml or json)", o.output)
	}
	if o.validate && o.kubeVersion != "" {
		return fmt.Errorf("--kube-version renders without a cluster and --validate with one: give one of them")
	}
	name, how := o.releaseName(dir)
	src := input.LocalDir(dir)
	if o.git.Takes(dir, "") {
		fetched, err := o.git.Fetch(cmd.Context(), dir, s.Stderr)
		if err != nil {
			return err
		}
		defer fetched.Cleanup()
		name, how = o.releaseName(o.git.ReleaseName(dir))
		src = fetched
	}
	if err := checkNames(s, name, how); err != nil {
		return err
	}
	var helmOpts []helm.Option
	if !o.validate {
		helmOpts = append(helmOpts, helm.WithKubeVersion(cmp.Or(o.kubeVersion, version.Kubernetes)))
	}
	in, err := o.input.Load(src, s.OperatorName, s.Stderr, helmOpts...)
	if err != nil {
		return err
	}
	rc := input.RenderContext{
		Namespace: s.ReleaseNamespace(), Name: name,
		OperatorName: s.OperatorName, Revision: 1, FirstApply: true,
	}
	if o.validate {
		if rc.Cluster, err = s.Connect(cmd.Context()); err != nil {
			return fmt.Errorf("%w (render without --validate needs no cluster)", err)
		}
	}
	objects, err := in.Render(cmd.Context(), rc)
	if err != nil {
		return err
	}
	checks := engine.CheckOptions{Prefix: s.OperatorName, Namespace: rc.Namespace}
	if o.validate {
		checks.Mapper = rc.Cluster.Client.RESTMapper()
	}
	sorted, err := engine.CheckForApply(checks, objects)
	if err != nil {
		return err
	}
	if o.validate {
		if err := dryRunRender(cmd.Context(), rc, objects); err != nil {
			return err
		}
	}
	encode := encodeYAMLStream
	if o.output == renderJSON {
		encode = encodeJSONList
	}
	data, err := encode(sorted)
	if err != nil {
		return err
	}
	_, err = s.Stdout.Write(data)
	return err
}

// dryRunRender sends the objects to the cluster as apply would write them
// for the release rc names, each write a server-side dry run: the API
// server's schema, admission and adoption checks, and nothing written.
func dryRunRender(ctx context.Context, rc input.RenderContext, objects []client.Object) error {
	store := releaseStore{client: rc.Cluster.Client}
	rel, err := loadRelease(ctx, store, rc.Namespace, rc.Name, rc.OperatorName)
	if err != nil {
		return err
	}
	next := &nextRevision{cluster: rc.Cluster, store: store, rel: rel, objects: objects}
	_, err = next.dryRun(ctx)
	return err
}

// releaseName returns the release name and, when it was not given, where
// it came from.
func (o *renderOptions) releaseName(dir string) (string, string) {
	if o.name != "" {
		return o.name, ""
	}
	return filepath.Base(input.AbsPath(dir)), " (the name of the source directory; set --name)"
}

// The formats of render -o.
const (
	renderYAML = "yaml"
	renderJSON = "json"
)

// encodeJSONList writes objects as one indented JSON v1 List, the form of
// kubectl get -o json.
func encodeJSONList(objects []client.Object) ([]byte, error) {
	items := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		content, err := objectContent(obj)
		if err != nil {
			return nil, err
		}
		items = append(items, content)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the objects as a JSON List: %w", err)
	}
	return append(data, '\n'), nil
}

// encodeYAMLStream writes objects as YAML documents separated by "---".
func encodeYAMLStream(objects []client.Object) ([]byte, error) {
	var out bytes.Buffer
	for i, obj := range objects {
		content, err := objectContent(obj)
		if err != nil {
			return nil, err
		}
		data, err := yaml.Marshal(content)
		if err != nil {
			return nil, fmt.Errorf("encoding %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(data)
	}
	return out.Bytes(), nil
}

// objectContent is obj as a map, for encoding.
func objectContent(obj client.Object) (map[string]any, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
	}
	return content, nil
}
