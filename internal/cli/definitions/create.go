package definitions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli/input"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
)

type createOptions struct {
	chart      input.ChartOptions
	group      string
	plural     string
	version    string
	shortNames []string
	served     string
	schema     string
	apply      bool
}

func newCreateCommand(s *session.Session) *cobra.Command {
	o := &createOptions{}
	cmd := &cobra.Command{
		Use:   "create KIND SOURCE",
		Short: "Make a ComponentDefinition of a chart or folder, with a preview of its CRD",
		Long: `create makes a ComponentDefinition that defines KIND (CamelCase: Database) in
--group from SOURCE: a chart of a Helm repository (--repo) or an OCI registry
(oci://…), or a local folder the operator serves (its --source NAME=DIR; NAME
is --served-as, default the folder's name). The schema of KIND's spec is made
of the source's values.schema.json (or --schema), as the operator makes it.

It prints the definition, then the CRD the operator will write for it, as YAML;
on stderr, every keyword of the schema the CRD cannot hold, with its path and
what the CRD does instead. A schema that cannot be made a CRD's, or names the
API server would refuse, is an error that says where, and nothing is written.
With --apply the definition is created in the cluster instead of printed.`,
		Example: `  # preview the kind Database of a chart in a Helm repository
  wavekit definition create Database postgres --repo https://charts.example.com --version '^1' --group platform.example.com

  # a folder the operator serves as --source web=/sources/web
  wavekit definition create WebSite ./web --group platform.example.com --served-as web --apply`,
		Args: session.ExactArgs("KIND SOURCE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			version, _ := cmd.Flags().GetString("version")
			return o.run(cmd, s, args[0], args[1], version)
		},
	}
	o.chart.AddFlags(cmd)
	flags := cmd.Flags()
	flags.StringVar(&o.group, "group", "", "the API group of the kind, a domain of your own (required)")
	flags.StringVar(&o.plural, "plural", "", "the resource of the kind (default: KIND in lower case, made plural)")
	flags.StringVar(&o.version, "api-version", "v1alpha1", "the API version the kind is served at")
	flags.StringSliceVar(&o.shortNames, "short-name", nil, "kubectl's abbreviations of the kind; repeat or separate with commas")
	flags.StringVar(&o.served, "served-as", "", "for a local folder: the name the operator serves it under (its --source NAME=DIR; default the folder's name)")
	flags.StringVar(&o.schema, "schema", "", "a JSON Schema file for the spec instead of the source's values.schema.json; it goes into the definition")
	flags.BoolVar(&o.apply, "apply", false, "create the definition in the cluster of --kubeconfig instead of printing it")
	return cmd
}

var kindPattern = regexp.MustCompile(`^[A-Z][a-zA-Z0-9]*$`)

func (o *createOptions) run(cmd *cobra.Command, s *session.Session, kind, source, version string) error {
	if !kindPattern.MatchString(kind) {
		return fmt.Errorf("KIND %q: a kind is CamelCase, letters and digits, starting with a capital: Database", kind)
	}
	if o.group == "" {
		return errors.New("--group is required: the API group of the kind, a domain of your own such as platform.example.com")
	}
	def, err := o.definition(kind, source, version)
	if err != nil {
		return err
	}
	src, err := o.chart.Fetch(cmd.Context(), source, s.Stderr)
	if err != nil {
		return err
	}
	defer src.Cleanup()
	converted, note, err := o.convert(src.Dir, def)
	if err != nil {
		return err
	}
	crd, err := crdgen.CRD(s.OperatorName, def, converted.Schema)
	if err != nil {
		return fmt.Errorf("the API server would refuse the kind's CRD: %w", err)
	}
	reportDropped(s, note, converted.Dropped)
	if o.apply {
		return apply(cmd, s, def)
	}
	return printPreview(s, def, crd)
}

// definition is the ComponentDefinition the flags describe.
func (o *createOptions) definition(kind, source, version string) (*v1alpha1.ComponentDefinition, error) {
	plural := o.plural
	if plural == "" {
		plural = pluralOf(strings.ToLower(kind))
	}
	def := &v1alpha1.ComponentDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "ComponentDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + o.group},
		Spec: v1alpha1.ComponentDefinitionSpec{Group: o.group, Version: o.version,
			Names: v1alpha1.DefinitionNames{Kind: kind, Plural: plural, ShortNames: o.shortNames}},
	}
	switch repo := o.chart.Repo(); {
	case repo != "":
		def.Spec.Source.Chart = &v1alpha1.ChartSource{Repository: repo, Name: source, Version: version}
	case strings.HasPrefix(source, "oci://"):
		i := strings.LastIndex(source, "/")
		def.Spec.Source.Chart = &v1alpha1.ChartSource{Repository: source[:i], Name: source[i+1:], Version: version}
	default:
		served := o.served
		if served == "" {
			served = filepath.Base(input.AbsPath(source))
		}
		def.Spec.Source.Source = served
	}
	return def, nil
}

// pluralOf makes an English plural of a lower-case kind, for the default.
func pluralOf(s string) string {
	switch {
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsAny(s[len(s)-2:len(s)-1], "aeiou"):
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

// convert makes the schema of the spec: of --schema (put into the
// definition) or of the source's values.schema.json, as the operator
// makes it (crdgen.SchemaOf); a source without one has a free-form spec,
// which note says.
func (o *createOptions) convert(dir string, def *v1alpha1.ComponentDefinition) (crdschema.Result, string, error) {
	if o.schema != "" {
		document, err := os.ReadFile(o.schema)
		if err != nil {
			return crdschema.Result{}, "", fmt.Errorf("reading the schema: %w", err)
		}
		raw, err := yaml.YAMLToJSON(document)
		if err != nil {
			return crdschema.Result{}, "", fmt.Errorf("%s: %w", o.schema, err)
		}
		def.Spec.Schema = &v1alpha1.DefinitionSchema{JSONSchema: &apiextensionsv1.JSON{Raw: raw}}
	}
	schema, err := crdgen.SchemaOf(def, dir)
	if err != nil {
		if o.schema != "" {
			def.Spec.Schema = nil
			return crdschema.Result{}, "", fmt.Errorf("%s: %w", o.schema, err)
		}
		return crdschema.Result{}, "", err
	}
	if schema.FreeForm {
		return schema.Result, "the source has no " + crdgen.SchemaFile + ": the spec of the kind is free-form, nothing in it is checked", nil
	}
	return schema.Result, "", nil
}

// reportDropped tells, on stderr, what of the schema the CRD cannot hold.
func reportDropped(s *session.Session, note string, dropped []crdschema.Dropped) {
	if note != "" {
		fmt.Fprintln(s.Stderr, "note: "+note)
	}
	if len(dropped) == 0 {
		return
	}
	fmt.Fprintf(s.Stderr, "the CRD cannot hold %d keyword(s) of the schema:\n", len(dropped))
	for _, d := range dropped {
		fmt.Fprintf(s.Stderr, "  %s\n", d)
	}
}

// printPreview prints the definition and, as a commented second
// document, the CRD the operator writes for it.
func printPreview(s *session.Session, def *v1alpha1.ComponentDefinition, crd *apiextensionsv1.CustomResourceDefinition) error {
	defYAML, err := encode(def)
	if err != nil {
		return err
	}
	crdYAML, err := encode(crd)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(s.Stdout, "%s---\n# The CRD the operator writes for it (a preview: apply the definition, not this):\n%s", defYAML, crdYAML)
	return err
}

// encode is obj as YAML, without what a new object's status and metadata
// say that nobody wrote (an empty status, a null creation time).
func encode(obj runtime.Object) ([]byte, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", obj, err)
	}
	delete(content, "status")
	if meta, ok := content["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	if spec, ok := content["spec"].(map[string]any); ok {
		pruneEmpty(spec)
	}
	out, err := yaml.Marshal(content)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", obj, err)
	}
	return out, nil
}

// apply creates the definition in the cluster.
func apply(cmd *cobra.Command, s *session.Session, def *v1alpha1.ComponentDefinition) error {
	cl, err := session.OperatorCluster(cmd.Context(), s)
	if err != nil {
		return err
	}
	if err := cl.Client.Create(cmd.Context(), def); err != nil {
		return fmt.Errorf("creating ComponentDefinition %s: %w", def.Name, err)
	}
	_, err = fmt.Fprintf(s.Stdout, "componentdefinition.wavekit.dev/%s created: the operator serves %s/%s %s once its CRD is written\n",
		def.Name, def.Spec.Group, crdgen.Version(def), def.Spec.Names.Kind)
	return err
}

// pruneEmpty removes the empty objects of m (settings left at their
// defaults), deepest first.
func pruneEmpty(m map[string]any) {
	for k, v := range m {
		if child, ok := v.(map[string]any); ok {
			pruneEmpty(child)
			if len(child) == 0 {
				delete(m, k)
			}
		}
	}
}
