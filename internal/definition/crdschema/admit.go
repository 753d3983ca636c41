package crdschema

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Admission is what the API server would do with a spec under a schema.
type Admission struct {
	// Pruned are the fields the schema does not hold, which the API server
	// would drop (paths under spec).
	Pruned []string
	// Nulls are the fields set to null where the schema allows no null and
	// gives no default, which the API server would drop (paths under spec).
	Nulls []string
	// Refused are the schema's complaints, as the API server words them.
	Refused field.ErrorList
}

// Admitted tells whether the spec passes whole: nothing pruned or dropped,
// nothing refused.
func (a Admission) Admitted() bool {
	return len(a.Pruned) == 0 && len(a.Nulls) == 0 && len(a.Refused) == 0
}

// String says what would be pruned and refused, for a message.
func (a Admission) String() string {
	var parts []string
	for _, p := range a.Pruned {
		parts = append(parts, p+": no longer in the schema (it would be dropped)")
	}
	for _, p := range a.Nulls {
		parts = append(parts, p+": null, which the schema does not allow here (it would be dropped)")
	}
	for _, e := range a.Refused {
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "; ")
}

// Checker checks specs against one schema, as the API server does on a
// write: nulls the schema does not allow dropped, defaults applied, unknown
// fields pruned, then the schema's checks and its validation rules (CEL).
type Checker struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	rules      *cel.Validator
}

// NewChecker prepares the checks of schema, the schema of a spec.
func NewChecker(schema apiextensionsv1.JSONSchemaProps) (*Checker, error) {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&schema, &internal, nil); err != nil {
		return nil, fmt.Errorf("converting the schema: %w", err)
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, fmt.Errorf("the schema is not structural: %w", err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(&internal)
	if err != nil {
		return nil, fmt.Errorf("the schema: %w", err)
	}
	return &Checker{structural: s, validator: validator, rules: cel.NewValidator(s, false, math.MaxInt64)}, nil
}

// Admit says what the API server would do with spec (it is not changed).
func (c *Checker) Admit(spec map[string]any) Admission {
	_, a := c.Admitted(spec)
	return a
}

// Admitted is spec as the API server would store it (defaulted and
// pruned), and what it would do with it; spec is not changed.
func (c *Checker) Admitted(spec map[string]any) (map[string]any, Admission) {
	if spec == nil {
		spec = map[string]any{}
	}
	obj := runtime.DeepCopyJSONValue(spec).(map[string]any)
	nulls := dropNulls(obj, c.structural, field.NewPath(Root))
	structuraldefaulting.Default(obj, c.structural)
	pruned := structuralpruning.PruneWithOptions(obj, c.structural, false, structuralschema.UnknownFieldPathOptions{
		TrackUnknownFieldPaths: true, ParentPath: []string{Root},
	})
	path := field.NewPath(Root)
	refused := apiservervalidation.ValidateCustomResource(path, obj, c.validator)
	if len(refused) == 0 {
		errs, _ := c.rules.Validate(context.Background(), path, c.structural, obj, nil, math.MaxInt64)
		refused = append(refused, errs...)
	}
	return obj, Admission{Pruned: pruned, Nulls: nulls, Refused: refused}
}

// dropNulls removes the nulls of x that its schema s does not allow and
// has no default for, as the API server does before it defaults and checks
// an object (structuraldefaulting.PruneNonNullableNullsWithoutDefaults),
// and returns their paths. A null with a default is left to Default.
func dropNulls(x any, s *structuralschema.Structural, path *field.Path) []string {
	var dropped []string
	switch x := x.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			child := fieldSchema(s, k)
			if x[k] == nil && child != nil && !child.Nullable && child.Default.Object == nil {
				delete(x, k)
				dropped = append(dropped, path.Child(k).String())
				continue
			}
			dropped = append(dropped, dropNulls(x[k], child, path.Child(k))...)
		}
	case []any:
		var items *structuralschema.Structural
		if s != nil {
			items = s.Items
		}
		for i := range x {
			dropped = append(dropped, dropNulls(x[i], items, path.Index(i))...)
		}
	}
	return dropped
}

// fieldSchema is the schema of field k of an object of schema s, if it has one.
func fieldSchema(s *structuralschema.Structural, k string) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	if p, ok := s.Properties[k]; ok {
		return &p
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Structural
	}
	return nil
}
