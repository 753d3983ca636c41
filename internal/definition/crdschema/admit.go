package crdschema

import (
	"context"
	"fmt"
	"math"
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
	// Refused are the schema's complaints, as the API server words them.
	Refused field.ErrorList
}

// Admitted tells whether the spec passes whole: nothing pruned, nothing refused.
func (a Admission) Admitted() bool { return len(a.Pruned) == 0 && len(a.Refused) == 0 }

// String says what would be pruned and refused, for a message.
func (a Admission) String() string {
	var parts []string
	for _, p := range a.Pruned {
		parts = append(parts, p+": no longer in the schema (it would be dropped)")
	}
	for _, e := range a.Refused {
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "; ")
}

// Checker checks specs against one schema, as the API server does on a
// write: defaults applied, unknown fields pruned, then the schema's checks
// and its validation rules (CEL).
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
	return obj, Admission{Pruned: pruned, Refused: refused}
}
