package instance

import (
	"encoding/json"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Values are the values an instance's spec maps to under mapping: the
// fixed values, and over them the spec (without fields) or the fields the
// mapping names, each at its place in the values.
func Values(mapping *v1alpha1.ValuesMapping, spec map[string]any) (manifests.Values, error) {
	fixed := map[string]any{}
	if mapping != nil && mapping.Fixed != nil && len(mapping.Fixed.Raw) > 0 {
		if err := json.Unmarshal(mapping.Fixed.Raw, &fixed); err != nil {
			return nil, fmt.Errorf("spec.values.fixed of the definition: %w", err)
		}
	}
	if mapping == nil || len(mapping.Fields) == 0 {
		return manifests.MergeValues(fixed, spec), nil
	}
	mapped := map[string]any{}
	for _, f := range mapping.Fields {
		value, found := lookup(spec, f.From)
		if !found {
			continue
		}
		to := f.To
		if to == "" {
			to = f.From
		}
		if err := set(mapped, to, value); err != nil {
			return nil, fmt.Errorf("spec.values.fields: %s to %s: %w", f.From, to, err)
		}
	}
	return manifests.MergeValues(fixed, mapped), nil
}

func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, key := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func set(m map[string]any, path string, value any) error {
	keys := strings.Split(path, ".")
	for _, key := range keys[:len(keys)-1] {
		next, ok := m[key]
		if !ok {
			next = map[string]any{}
			m[key] = next
		}
		obj, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("%s holds a value already, not an object", key)
		}
		m = obj
	}
	m[keys[len(keys)-1]] = value
	return nil
}

// CheckMapping refuses a mapping that names a field the schema of an
// instance's spec lacks, or maps two fields to one value.
func CheckMapping(mapping *v1alpha1.ValuesMapping, schema apiextensionsv1.JSONSchemaProps) error {
	if mapping == nil {
		return nil
	}
	seen := map[string]string{}
	for n, f := range mapping.Fields {
		if !schemaHas(schema, strings.Split(f.From, ".")) {
			return fmt.Errorf("spec.values.fields[%d].from: the schema of the spec has no field %s", n, f.From)
		}
		to := f.To
		if to == "" {
			to = f.From
		}
		if other, taken := seen[to]; taken {
			return fmt.Errorf("spec.values.fields[%d]: %s and %s both go to %s", n, other, f.From, to)
		}
		seen[to] = f.From
	}
	if mapping.Fixed != nil && len(mapping.Fixed.Raw) > 0 {
		var fixed map[string]any
		if err := json.Unmarshal(mapping.Fixed.Raw, &fixed); err != nil {
			return fmt.Errorf("spec.values.fixed: %w", err)
		}
	}
	return nil
}

// schemaHas tells whether the schema declares the field at path: a
// property, a map's values, or anything below a free-form field.
func schemaHas(s apiextensionsv1.JSONSchemaProps, path []string) bool {
	if len(path) == 0 {
		return true
	}
	if p, ok := s.Properties[path[0]]; ok {
		return schemaHas(p, path[1:])
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		return schemaHas(*s.AdditionalProperties.Schema, path[1:])
	}
	return s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields && len(s.Properties) == 0
}
