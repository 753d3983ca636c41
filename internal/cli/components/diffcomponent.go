package components

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli/diffview"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/definition"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// DiffOptions are the flags of diff component, which diff componentset
// takes too, and how a Component is previewed with them.
type DiffOptions struct {
	File           string
	operator       string
	path           string
	sources        []string
	defaultSA      string
	noCrossNSRefs  bool
	ShowSecrets    bool
	Output         string
	cacheDirectory string
	// servedByOperator maps the sources of --operator's arguments to their
	// directories in its image.
	servedByOperator map[string]string
	// nameSet is true when --operator-name was given.
	NameSet bool
	// kind is --kind: NAMESPACE/NAME is an instance of a defined kind.
	kind string
}

// NewDiffCommand is diff component: what the operator would change for a
// Component, by its own code, with every write a server-side dry run.
func NewDiffCommand(s *session.Session) *cobra.Command {
	o := &DiffOptions{}
	cmd := &cobra.Command{
		Use:   "component [NAMESPACE/NAME] [-f FILE]",
		Short: "Show what the reference operator's next pass of a Component would do, wave by wave",
		Long: `diff component previews a Component of the reference operator: it renders the
Component exactly as the operator does (spec.source from --source, spec.chart,
spec.sourceRef, valuesFrom read as the Component's service account, patches)
and plans its next pass against the live objects and the Component's inventory,
every write a server-side dry run, with the operator's own code. Nothing is
written. The output is diff's: the steps that change something, wave by wave,
with a unified diff each, then a summary; -o json|yaml for every step.

NAMESPACE/NAME previews the Component in the cluster (after an edit of an
object, or a new chart version in its repository). -f FILE previews a
Component from a file: a new one (everything is created), or a changed copy of
one in the cluster, which keeps that one's inventory. Give the flags the
operator runs with when they change rendering: --operator-name, --source,
--default-service-account. Reading valuesFrom as a service account
impersonates it, as the operator does: your identity needs that right.

With --kind, NAMESPACE/NAME is an instance of a kind a ComponentDefinition
defines: it is bound to the revision the operator would give it now (its pin,
the rollout's wave), rendered from that revision's pinned source and planned
against its own inventory, as its next pass would; reading the definition and
its revisions needs get and list on them.

Exit code: 0 when nothing would change, 1 when something would, 2 on error.`,
		Example: `  wavekit diff component apps/podinfo
  wavekit diff component --kind databases shop/orders
  wavekit diff component -f podinfo.yaml -o json
  wavekit diff component -f podinfo.yaml --source web=./charts/web`,
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{session.ErrorExitCode: "2"},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.NameSet = cmd.Flags().Changed("operator-name")
			return o.run(cmd.Context(), s, args)
		},
	}
	o.AddFlags(cmd, "a Component manifest to preview instead of the one in the cluster")
	addKindFlag(cmd, &o.kind)
	return cmd
}

// AddFlags adds the flags of diff component and diff componentset; file
// says what -f reads.
func (o *DiffOptions) AddFlags(cmd *cobra.Command, file string) {
	flags := cmd.Flags()
	flags.StringVarP(&o.File, "filename", "f", "", file)
	flags.StringVar(&o.operator, "operator", "", "NAMESPACE/DEPLOYMENT of the running operator: take --operator-name, --default-service-account and --no-cross-namespace-refs from its arguments (flags given here win)")
	flags.StringVar(&o.path, "path", "", "a local directory that stands for the artifact of spec.sourceRef (spec.path is read inside it), as flux diff kustomization --path")
	flags.StringArrayVar(&o.sources, "source", nil, "NAME=DIR, a source the operator serves (as its --source flag; repeatable)")
	flags.StringVar(&o.defaultSA, "default-service-account", "", "the operator's --default-service-account")
	flags.BoolVar(&o.noCrossNSRefs, "no-cross-namespace-refs", false, "the operator's --no-cross-namespace-refs")
	flags.StringVar(&o.cacheDirectory, "cache-dir", "", "where fetched charts and artifacts are kept (default: a directory in the system's temporary directory)")
	flags.BoolVar(&o.ShowSecrets, "show-secrets", false, "print the values of Secrets instead of masks (they end up in logs)")
	flags.StringVarP(&o.Output, "output", "o", "text", "output format: text, yaml or json (schema in docs/schemas/diff.schema.json)")
}

func (o *DiffOptions) run(ctx context.Context, s *session.Session, args []string) error {
	if err := o.Check(args, "component"); err != nil {
		return err
	}
	cl, opts, err := o.Prepare(ctx, s)
	if err != nil {
		return err
	}
	if o.kind != "" {
		return o.runInstance(ctx, s, cl, opts, args)
	}
	c, err := o.component(ctx, cl, args)
	if err != nil {
		return err
	}
	preview, err := o.Preview(ctx, cl, opts, c)
	if err != nil {
		return err
	}
	return diffview.WritePlan(s.Stdout, o.Output, c.Namespace+"/"+c.Name, preview, o.ShowSecrets)
}

// Prepare connects and makes the options of the operator to preview as.
func (o *DiffOptions) Prepare(ctx context.Context, s *session.Session) (*session.Cluster, operator.Options, error) {
	sources, err := operator.ParseSources(o.sources)
	if err != nil {
		return nil, operator.Options{}, err
	}
	cl, err := s.Connect(ctx)
	if err != nil {
		return nil, operator.Options{}, err
	}
	if err := v1alpha1.AddToScheme(cl.Scheme); err != nil {
		return nil, operator.Options{}, fmt.Errorf("building the client scheme: %w", err)
	}
	opts := operator.Options{Name: s.OperatorName, Sources: sources, CacheDir: o.cacheDirectory,
		Reconciler: component.ReconcilerOptions{DefaultServiceAccount: o.defaultSA, NoCrossNamespaceRefs: o.noCrossNSRefs}}
	if o.operator != "" {
		if err := o.takeOperatorFlags(ctx, cl, &opts); err != nil {
			return nil, operator.Options{}, err
		}
	}
	return cl, opts, nil
}

// runInstance previews the instance ref of --kind.
func (o *DiffOptions) runInstance(ctx context.Context, s *session.Session, cl *session.Cluster, opts operator.Options, args []string) error {
	if len(args) != 1 || o.File != "" || o.path != "" {
		return fmt.Errorf("--kind previews an instance in the cluster: give NAMESPACE/NAME, without -f or --path")
	}
	ref := args[0]
	k, err := resolveKind(ctx, cl, o.kind)
	if err != nil {
		return err
	}
	def := &v1alpha1.ComponentDefinition{}
	if err := cl.Client.Get(ctx, client.ObjectKey{Name: k.definition}, def); err != nil {
		return ReadError(fmt.Sprintf("reading ComponentDefinition %s", k.definition), err)
	}
	id := session.ObjectName(ref, cl.Namespace)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.gvk)
	if err := cl.Client.Get(ctx, id, u); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("%s %s not found", k.gvk.Kind, id)
		}
		return fmt.Errorf("reading %s %s: %w", k.gvk.Kind, id, err)
	}
	preview, err := definition.PreviewInstance(ctx, cl.Config, cl.Scheme, cl.Client, opts, def, u)
	if err != nil {
		return err
	}
	return diffview.WritePlan(s.Stdout, o.Output, id.String(), preview, o.ShowSecrets)
}

// Preview previews Component c as the operator of opts.
func (o *DiffOptions) Preview(ctx context.Context, cl *session.Cluster, opts operator.Options, c *v1alpha1.Component) (engine.Preview, error) {
	if served, ok := o.servedByOperator[c.Spec.Source]; ok && opts.Sources[c.Spec.Source] == "" {
		return engine.Preview{}, fmt.Errorf("Component %s/%s uses source %s, which the operator serves from %s in its image: give --source %s=DIR with a copy of it",
			c.Namespace, c.Name, c.Spec.Source, served, c.Spec.Source)
	}
	if o.path != "" && c.Spec.SourceRef == nil {
		return engine.Preview{}, fmt.Errorf("--path %s: Component %s/%s has no spec.sourceRef to stand for", o.path, c.Namespace, c.Name)
	}
	preview, err := operator.Preview(ctx, cl.Config, cl.Scheme, opts, c, o.path)
	if err != nil {
		return engine.Preview{}, fmt.Errorf("Component %s/%s: %w", c.Namespace, c.Name, err)
	}
	return preview, nil
}

// Check refuses an unknown -o, and arguments of command (component,
// componentset) that name no object, one twice (NAMESPACE/NAME and -f), or
// a name of more than two parts.
func (o *DiffOptions) Check(args []string, command string) error {
	if err := diffview.CheckPlanFormat(o.Output); err != nil {
		return err
	}
	switch {
	case len(args) == 0 && o.File == "":
		return fmt.Errorf("diff %s needs NAMESPACE/NAME or -f FILE (see wavekit diff %s --help)", command, command)
	case len(args) == 1 && o.File != "":
		return fmt.Errorf("diff %s takes NAMESPACE/NAME or -f FILE, not both", command)
	case len(args) == 1 && strings.Count(args[0], "/") > 1:
		return fmt.Errorf("%q: want NAMESPACE/NAME or NAME", args[0])
	}
	return nil
}

// component returns the Component to preview: the one in the cluster, or
// the file's with the inventory of the one in the cluster by its name.
func (o *DiffOptions) component(ctx context.Context, cl *session.Cluster, args []string) (*v1alpha1.Component, error) {
	if o.File == "" {
		id := session.ObjectName(args[0], cl.Namespace)
		live, err := previewedComponent(ctx, cl, id)
		if err == nil && live == nil {
			err = fmt.Errorf("Component %s not found", id)
		}
		return live, err
	}
	c, err := readDiffComponentFile(o.File, cl.Namespace)
	if err != nil {
		return nil, err
	}
	live, err := previewedComponent(ctx, cl, types.NamespacedName{Namespace: c.Namespace, Name: c.Name})
	if err != nil {
		return nil, err
	}
	NextGeneration(c, live)
	return c, nil
}

// NextGeneration gives c, a Component to write, the identity, status and
// generation it would have once written over live (nil: none yet).
func NextGeneration(c, live *v1alpha1.Component) {
	c.Generation = 1
	if live != nil {
		c.UID, c.Generation, c.Status = live.UID, live.Generation, live.Status
		if !equality.Semantic.DeepEqual(c.Spec, live.Spec) {
			c.Generation++ // as the API server counts a change of the spec
		}
	}
}

// previewedComponent reads a Component; nil when there is none.
func previewedComponent(ctx context.Context, cl *session.Cluster, id types.NamespacedName) (*v1alpha1.Component, error) {
	c := &v1alpha1.Component{}
	err := cl.Client.Get(ctx, id, c)
	switch {
	case meta.IsNoMatchError(err):
		return nil, fmt.Errorf("the cluster does not serve Components (%s): install the reference operator's CRD", v1alpha1.GroupVersion)
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading Component %s: %w", id, err)
	}
	return c, nil
}

// readDiffComponentFile reads one Component manifest; fields it does not know
// are an error, as kubectl apply --validate=strict makes them.
func readDiffComponentFile(path, namespace string) (*v1alpha1.Component, error) {
	c := &v1alpha1.Component{}
	return c, ReadManifest(path, "Component", namespace, c)
}

// ReadManifest reads one manifest of kind of v1alpha1 into obj strictly,
// in namespace unless it names one.
func ReadManifest(path, kind, namespace string, obj client.Object) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if want := v1alpha1.GroupVersion.String(); gvk.GroupVersion().String() != want || gvk.Kind != kind {
		return fmt.Errorf("%s: holds %s %s, not a %s of %s", path, gvk.GroupVersion().String(), gvk.Kind, kind, want)
	}
	if obj.GetName() == "" {
		return fmt.Errorf("%s: the %s has no metadata.name", path, kind)
	}
	if obj.GetNamespace() == "" {
		obj.SetNamespace(namespace)
	}
	return nil
}

// takeOperatorFlags reads the arguments of the operator's Deployment and
// sets the options that change rendering, unless given on the command line.
func (o *DiffOptions) takeOperatorFlags(ctx context.Context, cl *session.Cluster, opts *operator.Options) error {
	id := session.ObjectName(o.operator, cl.Namespace)
	var d appsv1.Deployment
	if err := cl.Client.Get(ctx, id, &d); err != nil {
		return fmt.Errorf("--operator %s: reading its Deployment: %w", o.operator, err)
	}
	args := operatorArgs(d.Spec.Template.Spec.Containers)
	if args == nil {
		return fmt.Errorf("--operator %s: no container of the Deployment runs with --operator-name or --source", o.operator)
	}
	if name, ok := args["operator-name"]; ok && !o.NameSet {
		opts.Name = name[len(name)-1]
	}
	if sa, ok := args["default-service-account"]; ok && opts.Reconciler.DefaultServiceAccount == "" {
		opts.Reconciler.DefaultServiceAccount = sa[len(sa)-1]
	}
	if v, ok := args["no-cross-namespace-refs"]; ok && v[len(v)-1] != "false" {
		opts.Reconciler.NoCrossNamespaceRefs = true
	}
	o.servedByOperator = map[string]string{}
	for _, s := range args["source"] {
		if name, dir, ok := strings.Cut(s, "="); ok {
			o.servedByOperator[name] = dir
		}
	}
	return nil
}

// operatorArgs parses the flags of the first container that runs with
// --operator-name or --source: name → values in order ("true" for a flag
// without a value). nil when no container does.
func operatorArgs(containers []corev1.Container) map[string][]string {
	for _, c := range containers {
		flags := map[string][]string{}
		all := append(append([]string(nil), c.Command...), c.Args...)
		for i := 0; i < len(all); i++ {
			arg, ok := strings.CutPrefix(all[i], "--")
			if !ok {
				continue
			}
			name, value, hasValue := strings.Cut(arg, "=")
			if !hasValue {
				value = "true"
				if i+1 < len(all) && !strings.HasPrefix(all[i+1], "-") && name != "no-cross-namespace-refs" {
					value, i = all[i+1], i+1
				}
			}
			flags[name] = append(flags[name], value)
		}
		if flags["operator-name"] != nil || flags["source"] != nil {
			return flags
		}
	}
	return nil
}
