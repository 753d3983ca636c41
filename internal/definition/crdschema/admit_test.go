package crdschema_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
)

func checker(t *testing.T, document string) *crdschema.Checker {
	t.Helper()
	c, err := crdschema.NewChecker(convert(t, document).Schema)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A schema change breaks an instance when the API server would drop a
// field it sets, or refuse what it says: the checks a new revision's schema
// must pass against every existing instance.
func TestAdmitSaysWhatANewSchemaWouldDoToASpec(t *testing.T) {
	spec := map[string]any{"size": "10Gi", "tier": "large", "replicas": int64(3)}
	cases := []struct {
		name, schema string
		admitted     bool
		says         string
	}{
		{"the same schema", `{"type":"object","additionalProperties":false,"properties":{"size":{"type":"string"},"tier":{"enum":["small","large"]},"replicas":{"type":"integer"}}}`, true, ""},
		{"a field removed", `{"type":"object","additionalProperties":false,"properties":{"size":{"type":"string"},"tier":{"type":"string"}}}`, false, "spec.replicas: no longer in the schema"},
		{"a field removed from an open object", `{"type":"object","properties":{"size":{"type":"string"}}}`, true, ""},
		{"a type narrowed", `{"type":"object","properties":{"size":{"type":"integer"}}}`, false, `spec.size: Invalid value: "string": size in body must be of type integer`},
		{"an enum narrowed", `{"type":"object","properties":{"tier":{"enum":["small"]}}}`, false, `spec.tier: Unsupported value: "large"`},
		{"a bound tightened", `{"type":"object","properties":{"replicas":{"type":"integer","maximum":2}}}`, false, "spec.replicas: Invalid value: 3: replicas in body should be less than or equal to 2"},
		{"a new required field", `{"type":"object","required":["zone"],"properties":{"zone":{"type":"string"}}}`, false, "spec.zone: Required value"},
		{"a new required field with a default", `{"type":"object","required":["zone"],"properties":{"zone":{"type":"string","default":"a"}}}`, true, ""},
		{"a rule", `{"type":"object","properties":{"size":{"type":"string","x-kubernetes-validations":[{"rule":"self.endsWith('Ti')","message":"size in Ti"}]}}}`, false, "size in Ti"},
		{"an enum that allows null", `{"type":"object","properties":{"tier":{"enum":["small","large",null]}}}`, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := checker(t, tc.schema).Admit(spec)
			if a.Admitted() != tc.admitted {
				t.Fatalf("admitted %v, want %v: %s", a.Admitted(), tc.admitted, a)
			}
			if !strings.Contains(a.String(), tc.says) {
				t.Fatalf("%q does not say %q", a, tc.says)
			}
		})
	}
	if spec["replicas"] != int64(3) || len(spec) != 3 {
		t.Fatalf("Admit changed the spec: %v", spec)
	}
}

// A null the schema does not allow is dropped, and said, or replaced by
// the default, as the API server does before it checks a spec; one it
// allows is kept.
func TestAdmitDropsNullsTheSchemaDoesNotAllow(t *testing.T) {
	c := checker(t, `{"type":"object","properties":{
	  "labels":{"type":"object","additionalProperties":{"type":"string"}},
	  "hosts":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
	  "size":{"type":"string","default":"1Gi"},
	  "tier":{"type":["string","null"],"enum":["small","large",null]}
	}}`)
	admitted, a := c.Admitted(map[string]any{"labels": nil, "hosts": []any{map[string]any{"name": nil}}, "size": nil, "tier": nil})
	if len(a.Refused) > 0 || len(a.Pruned) > 0 {
		t.Fatalf("refused or pruned: %s", a)
	}
	if want := []string{"spec.hosts[0].name", "spec.labels"}; !reflect.DeepEqual(a.Nulls, want) {
		t.Errorf("nulls dropped %v, want %v", a.Nulls, want)
	}
	if a.Admitted() || !strings.Contains(a.String(), "spec.labels: null, which the schema does not allow here (it would be dropped)") {
		t.Errorf("the admission does not say the null of labels goes: %s", a)
	}
	want := map[string]any{"hosts": []any{map[string]any{}}, "size": "1Gi", "tier": nil}
	if !reflect.DeepEqual(admitted, want) {
		t.Fatalf("admitted %v, want %v", admitted, want)
	}
}
