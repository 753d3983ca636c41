package crdschema

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks a CRD as the API server does when it is created, offline,
// and returns what it refuses.
func Validate(crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	in := crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(in)
	var out apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(in, &out, nil); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	return validation.ValidateCustomResourceDefinition(context.Background(), &out)
}

// SpecPath is where a CRD built by WrapSpec holds the spec's schema: field
// errors of Validate under it are about the converted document.
const SpecPath = "openAPIV3Schema.properties[spec]"

// WrapSpec is a CRD of a placeholder kind whose spec has the schema spec,
// for Validate.
func WrapSpec(spec apiextensionsv1.JSONSchemaProps) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "checks.crdschema.wavekit.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "crdschema.wavekit.dev", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "checks", Singular: "check", Kind: "Check", ListKind: "CheckList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec},
				}}}},
		},
	}
}

// repairable are the keywords the API server may refuse in a converted
// document that the conversion drops rather than fail: a default the
// schema itself refuses, a validation rule that does not compile.
var repairable = map[string]string{
	"default":                  "the API server refuses this default (%s): no default",
	"x-kubernetes-validations": "the API server refuses this validation rule (%s): not checked",
	"example":                  "the API server refuses this example (%s): no example",
}

// validate checks the converted schema with the API server's rules: a
// default or rule it refuses is dropped and reported, anything else is an
// error naming the path, since what Convert returns must be servable.
func (c *converter) validate(s *spec) error {
	for range 16 {
		errs := Validate(WrapSpec(*s))
		if len(errs) == 0 {
			return nil
		}
		repaired := false
		for _, e := range errs {
			tokens, keyword, ok := parseSchemaPath(e.Field)
			if !ok {
				return &Error{Path: Root, Reason: e.Error()}
			}
			path := valuePath(tokens)
			effect, canRepair := repairable[keyword]
			if !canRepair {
				return &Error{Path: path, Reason: fmt.Sprintf("%s: %s", keyword, detail(e))}
			}
			if remove(s, tokens, keyword) {
				c.dropped = append(c.dropped, Dropped{Path: path, Keyword: keyword, Effect: fmt.Sprintf(effect, detail(e))})
				repaired = true
			}
		}
		if !repaired {
			return &Error{Path: Root, Reason: errs.ToAggregate().Error()}
		}
	}
	return &Error{Path: Root, Reason: "the API server keeps refusing the schema"}
}

type spec = apiextensionsv1.JSONSchemaProps

func detail(e *field.Error) string {
	if e.Detail != "" {
		return e.Detail
	}
	return strings.TrimPrefix(e.ErrorBody(), e.Type.String()+": ")
}

// token is one step of a schema path: a property, the items, a map's
// values, or a branch of a junctor.
type token struct {
	kind  string // properties, items, additionalProperties, allOf, anyOf, oneOf, not
	name  string // the property
	index int    // the branch
}

var stepPattern = regexp.MustCompile(`^\.(properties)\[([^\]]*)\]|^\.(items|additionalProperties|not)|^\.(allOf|anyOf|oneOf)\[(\d+)\]`)

// parseSchemaPath reads a field path of Validate under SpecPath: the steps
// to the node, and the keyword refused there.
func parseSchemaPath(fieldPath string) ([]token, string, bool) {
	i := strings.Index(fieldPath, SpecPath)
	if i < 0 {
		return nil, "", false
	}
	rest := fieldPath[i+len(SpecPath):]
	var tokens []token
	for {
		m := stepPattern.FindStringSubmatch(rest)
		if m == nil {
			break
		}
		switch {
		case m[1] != "":
			tokens = append(tokens, token{kind: m[1], name: m[2]})
		case m[3] != "":
			tokens = append(tokens, token{kind: m[3]})
		default:
			index, _ := strconv.Atoi(m[5])
			tokens = append(tokens, token{kind: m[4], index: index})
		}
		rest = rest[len(m[0]):]
	}
	keyword := strings.TrimPrefix(rest, ".")
	if j := strings.IndexAny(keyword, ".["); j >= 0 {
		keyword = keyword[:j]
	}
	return tokens, keyword, true
}

// valuePath is the path of the value tokens lead to.
func valuePath(tokens []token) string {
	path := Root
	for _, t := range tokens {
		switch t.kind {
		case "properties":
			path += "." + t.name
		case "items":
			path += "[*]"
		case "additionalProperties":
			path += ".*"
		}
	}
	return path
}

// remove removes keyword from the node tokens lead to, and tells whether
// there was one.
func remove(s *spec, tokens []token, keyword string) bool {
	if len(tokens) == 0 {
		switch keyword {
		case "default":
			had := s.Default != nil
			s.Default = nil
			return had
		case "example":
			had := s.Example != nil
			s.Example = nil
			return had
		case "x-kubernetes-validations":
			had := len(s.XValidations) > 0
			s.XValidations = nil
			return had
		}
		return false
	}
	t, rest := tokens[0], tokens[1:]
	switch t.kind {
	case "properties":
		child, ok := s.Properties[t.name]
		if !ok {
			return false
		}
		removed := remove(&child, rest, keyword)
		s.Properties[t.name] = child
		return removed
	case "items":
		return s.Items != nil && s.Items.Schema != nil && remove(s.Items.Schema, rest, keyword)
	case "additionalProperties":
		return s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && remove(s.AdditionalProperties.Schema, rest, keyword)
	case "not":
		return s.Not != nil && remove(s.Not, rest, keyword)
	}
	branches := map[string][]spec{"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf}[t.kind]
	return t.index < len(branches) && remove(&branches[t.index], rest, keyword)
}
