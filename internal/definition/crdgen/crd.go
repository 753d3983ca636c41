package crdgen

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/config"
	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// LabelDefinition is the suffix of the label "<operator>/definition" on
// what the operator writes for a definition (its CRD, ClusterRoles,
// revisions): the definition's name. A CRD without it, or naming another
// definition, is not the operator's to change.
const LabelDefinition = "definition"

// RevisionField is the field of an instance's status that says which
// revision of its definition it runs.
const RevisionField = "revision"

// Name is the name of the CRD (and of the definition) of a kind.
func Name(def *v1alpha1.ComponentDefinition) string {
	return def.Spec.Names.Plural + "." + def.Spec.Group
}

// Version is the API version the definition's kind is served at.
func Version(def *v1alpha1.ComponentDefinition) string {
	if def.Spec.Version == "" {
		return "v1alpha1"
	}
	return def.Spec.Version
}

// CRD is the CustomResourceDefinition that serves def's kind, with spec the
// schema of an instance's spec (a revision's), as operator writes it. The
// CRD is checked as the API server will: an error names the definition's
// fields at fault.
func CRD(operator string, def *v1alpha1.ComponentDefinition, spec apiextensionsv1.JSONSchemaProps) (*apiextensionsv1.CustomResourceDefinition, error) {
	status, err := instanceStatus()
	if err != nil {
		return nil, err
	}
	names := def.Spec.Names
	singular := names.Singular
	if singular == "" {
		singular = strings.ToLower(names.Kind)
	}
	if spec.Description == "" {
		spec.Description = fmt.Sprintf("The values %s renders with.", describeSource(def.Spec.Source))
	}
	root := apiextensionsv1.JSONSchemaProps{
		Type:        "object",
		Description: fmt.Sprintf("%s is installed by the operator %s from %s (ComponentDefinition %s).", names.Kind, operator, describeSource(def.Spec.Source), def.Name),
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion": {Type: "string", Description: "APIVersion is the version of the kind's schema."},
			"kind":       {Type: "string", Description: "Kind is the kind of the object."},
			"metadata":   {Type: "object"},
			"spec":       spec,
			"status":     status,
		},
	}
	if len(spec.Required) > 0 {
		root.Required = []string{"spec"}
	} else if spec.Default == nil {
		root.Properties["spec"] = withDefault(spec, "{}")
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: Name(def), Labels: map[string]string{manifests.Key(operator, LabelDefinition): def.Name},
			Annotations: map[string]string{manifests.Key(operator, "owner"): "ComponentDefinition " + def.Name}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: def.Spec.Group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: names.Kind, ListKind: names.Kind + "List", Plural: names.Plural,
				Singular: singular, ShortNames: names.ShortNames, Categories: names.Categories},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: Version(def), Served: true, Storage: true,
				Schema:                   &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &root},
				Subresources:             &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: columns(def.Spec.PrinterColumns),
			}},
		},
	}
	if errs := refused(def, crd); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return crd, nil
}

func withDefault(s apiextensionsv1.JSONSchemaProps, value string) apiextensionsv1.JSONSchemaProps {
	s.Default = &apiextensionsv1.JSON{Raw: []byte(value)}
	return s
}

// describeSource says in words what a definition installs.
func describeSource(src v1alpha1.DefinitionSource) string {
	switch {
	case src.Chart != nil:
		return "the chart " + src.Chart.Name + " of " + src.Chart.Repository
	case src.SourceRef != nil:
		return "the " + src.SourceRef.Kind + " " + src.SourceRef.Namespace + "/" + src.SourceRef.Name
	}
	return "the source " + src.Source
}

// fixedColumns are the columns every defined kind shows before the
// definition's own; Age comes last.
var fixedColumns = []apiextensionsv1.CustomResourceColumnDefinition{
	{Name: "Ready", Type: "string", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
	{Name: "State", Type: "string", JSONPath: ".status.state"},
	{Name: "Revision", Type: "integer", JSONPath: ".status." + RevisionField, Description: "The revision of the definition the instance runs."},
}

func columns(own []apiextensionsv1.CustomResourceColumnDefinition) []apiextensionsv1.CustomResourceColumnDefinition {
	out := append([]apiextensionsv1.CustomResourceColumnDefinition{}, fixedColumns...)
	out = append(out, own...)
	return append(out, apiextensionsv1.CustomResourceColumnDefinition{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"})
}

// columnPath matches the field path of a printer column in the CRD's
// validation errors.
var columnPath = regexp.MustCompile(`^spec\.(?:versions\[0\]\.)?additionalPrinterColumns\[(\d+)\]`)

// refused is what the API server would refuse of crd, with each error's
// field said as the definition's field that causes it.
func refused(def *v1alpha1.ComponentDefinition, crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	errs := crdschema.Validate(crd)
	for _, e := range errs {
		switch f := e.Field; {
		case strings.HasPrefix(f, "spec.names."), strings.HasPrefix(f, "spec.group"):
		case columnPath.MatchString(f):
			m := columnPath.FindStringSubmatch(f)
			i, _ := strconv.Atoi(m[1])
			e.Field = columnPath.ReplaceAllString(f, "spec.printerColumns["+strconv.Itoa(i-len(fixedColumns))+"]")
		case strings.HasPrefix(f, "metadata.name"):
			e.Field = "metadata.name (" + Name(def) + ")"
		}
	}
	return errs
}

var (
	statusOnce   sync.Once
	statusSchema apiextensionsv1.JSONSchemaProps
	statusErr    error
)

// instanceStatus is the schema of an instance's status: a Component's
// (conditions, inventory, history, observedGeneration…), read from the
// Component CRD the operator's chart ships, and the revision it runs.
func instanceStatus() (apiextensionsv1.JSONSchemaProps, error) {
	statusOnce.Do(func() {
		statusSchema, statusErr = componentStatus()
	})
	return *statusSchema.DeepCopy(), statusErr
}

func componentStatus() (apiextensionsv1.JSONSchemaProps, error) {
	raw, err := config.Chart.ReadFile("chart/crds/wavekit.dev_components.yaml")
	if err != nil {
		return apiextensionsv1.JSONSchemaProps{}, fmt.Errorf("reading the Component CRD: %w", err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return apiextensionsv1.JSONSchemaProps{}, fmt.Errorf("reading the Component CRD: %w", err)
	}
	status, ok := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"]
	if !ok {
		return apiextensionsv1.JSONSchemaProps{}, fmt.Errorf("the Component CRD has no status")
	}
	status.Description = "Status says how the instance's install went, as a Component's status does, and which revision of the definition it runs."
	status.Properties[RevisionField] = apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int64",
		Description: "Revision is the revision of the ComponentDefinition the instance runs."}
	return status, nil
}

// SpecSchema reads the schema of a revision.
func SpecSchema(rev *v1alpha1.ComponentDefinitionRevision) (apiextensionsv1.JSONSchemaProps, error) {
	var s apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(rev.Spec.Schema.Raw, &s); err != nil {
		return s, fmt.Errorf("the schema of revision %d: %w", rev.Spec.Revision, err)
	}
	return s, nil
}
