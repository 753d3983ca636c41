package crdschema_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
)

// convert converts document, fails on an error, and checks that the API
// server's CRD validation takes the result.
func convert(t *testing.T, document string) crdschema.Result {
	t.Helper()
	r, err := crdschema.Convert([]byte(document))
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	if errs := crdschema.Validate(crdschema.WrapSpec(r.Schema)); len(errs) > 0 {
		t.Fatalf("the API server would refuse the converted schema: %v", errs.ToAggregate())
	}
	return r
}

// expectSchema compares s with want, given as YAML.
func expectSchema(t *testing.T, s apiextensionsv1.JSONSchemaProps, want string) {
	t.Helper()
	var expected apiextensionsv1.JSONSchemaProps
	if err := yaml.UnmarshalStrict([]byte(want), &expected); err != nil {
		t.Fatalf("the expected schema: %v", err)
	}
	got, _ := json.Marshal(s)
	exp, _ := json.Marshal(expected)
	if string(got) != string(exp) {
		gotYAML, _ := yaml.JSONToYAML(got)
		t.Fatalf("converted schema:\n%s\nwant:\n%s", gotYAML, want)
	}
}

// expectDropped checks that the report holds exactly these path/keyword
// pairs, in order, and that every entry says where and what happens.
func expectDropped(t *testing.T, r crdschema.Result, want ...string) {
	t.Helper()
	var got []string
	for _, d := range r.Dropped {
		got = append(got, d.Path+" "+d.Keyword)
		if d.Effect == "" {
			t.Errorf("%s %s: no effect", d.Path, d.Keyword)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("dropped:\n%s\nwant:\n%s\nfull report:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), report(r))
	}
}

func report(r crdschema.Result) string {
	var lines []string
	for _, d := range r.Dropped {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}

// expectError checks that document is refused with an error at path whose
// reason holds each of parts.
func expectError(t *testing.T, document, path string, parts ...string) {
	t.Helper()
	_, err := crdschema.Convert([]byte(document))
	var e *crdschema.Error
	if !errors.As(err, &e) {
		t.Fatalf("Convert: %v, want a *crdschema.Error", err)
	}
	if e.Path != path {
		t.Errorf("error path %q, want %q (%v)", e.Path, path, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

func TestNestedObjectsEnumsDefaultsAndRefs(t *testing.T) {
	r := convert(t, `{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "type": "object",
	  "additionalProperties": false,
	  "required": ["storage"],
	  "properties": {
	    "tier": {"type": "string", "enum": ["small", "large"], "default": "small", "description": "how big"},
	    "storage": {"$ref": "#/$defs/storage", "description": "where the data lives"},
	    "backup": {"$ref": "#/$defs/storage"}
	  },
	  "$defs": {
	    "storage": {
	      "type": "object",
	      "additionalProperties": false,
	      "properties": {
	        "size": {"type": "string", "pattern": "^[0-9]+Gi$", "default": "1Gi"},
	        "class": {"type": ["string", "null"]}
	      }
	    }
	  }
	}`)
	expectSchema(t, r.Schema, `
type: object
required: [storage]
properties:
  tier: {type: string, enum: [small, large], default: small, description: how big}
  storage:
    type: object
    description: where the data lives
    properties:
      size: {type: string, pattern: "^[0-9]+Gi$", default: 1Gi}
      class: {type: string, nullable: true}
  backup:
    type: object
    properties:
      size: {type: string, pattern: "^[0-9]+Gi$", default: 1Gi}
      class: {type: string, nullable: true}
`)
	expectDropped(t, r)
}

func TestObjectsKeepFieldsTheSchemaDoesNotName(t *testing.T) {
	r := convert(t, `{
	  "properties": {
	    "open": {"type": "object", "properties": {"a": {"type": "string"}}},
	    "map": {"type": "object", "additionalProperties": {"type": "integer"}},
	    "free": {"type": "object"},
	    "anything": {},
	    "both": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
	    "labels": {"type": "object", "patternProperties": {"^[a-z]+$": {"type": "string"}}}
	  }
	}`)
	expectSchema(t, r.Schema, `
type: object
x-kubernetes-preserve-unknown-fields: true
properties:
  open: {type: object, properties: {a: {type: string}}, x-kubernetes-preserve-unknown-fields: true}
  map: {type: object, additionalProperties: {type: integer}}
  free: {type: object, x-kubernetes-preserve-unknown-fields: true}
  anything: {x-kubernetes-preserve-unknown-fields: true}
  both: {type: object, properties: {a: {type: string}}, x-kubernetes-preserve-unknown-fields: true}
  labels: {type: object, additionalProperties: {type: string}}
`)
	expectDropped(t, r, "spec.both additionalProperties", "spec.labels patternProperties")
}

func TestTypeLists(t *testing.T) {
	r := convert(t, `{
	  "type": "object", "additionalProperties": false,
	  "properties": {
	    "nullableString": {"type": ["string", "null"]},
	    "port": {"type": ["integer", "string"]},
	    "mixed": {"type": ["string", "boolean", "number"]},
	    "numbers": {"type": ["integer", "number"], "minimum": 0},
	    "orNull": {"oneOf": [{"$ref": "#/$defs/size"}, {"type": "null"}]},
	    "sized": {"anyOf": [{"type": "integer"}, {"type": "string"}]}
	  },
	  "$defs": {"size": {"type": "integer", "minimum": 1}}
	}`)
	expectSchema(t, r.Schema, `
type: object
properties:
  nullableString: {type: string, nullable: true}
  port: {x-kubernetes-int-or-string: true}
  mixed: {x-kubernetes-preserve-unknown-fields: true}
  numbers: {type: number, minimum: 0}
  orNull: {type: integer, minimum: 1, nullable: true}
  sized: {x-kubernetes-int-or-string: true}
`)
	expectDropped(t, r, "spec.mixed type")
}

// The API server refuses null to any enum, even one that lists null, and
// stores no default or example of null: null in an enum makes the field
// nullable and the other values an enum under allOf, which null never
// reaches; a default of null is none.
func TestNullInAnEnumMakesTheFieldNullableAndLeavesTheList(t *testing.T) {
	r := convert(t, `{
	  "type": "object", "additionalProperties": false,
	  "properties": {
	    "format": {"type": ["string", "null"], "enum": ["text", "json", null], "default": "text"},
	    "level": {"enum": ["debug", "info", null]},
	    "scope": {"type": ["string", "null"], "enum": ["All", null], "default": null, "examples": [null]},
	    "strict": {"type": ["string", "null"], "enum": ["on", "off"]},
	    "legacy": {"const": null},
	    "placeholder": {"type": ["string", "null"], "enum": [null]}
	  }
	}`)
	expectSchema(t, r.Schema, `
type: object
properties:
  format: {type: string, nullable: true, default: text, allOf: [{enum: [text, json]}]}
  level: {type: string, nullable: true, allOf: [{enum: [debug, info]}]}
  scope: {type: string, nullable: true, allOf: [{enum: [All]}]}
  strict: {type: string, nullable: true, enum: ["on", "off"]}
  legacy: {nullable: true, x-kubernetes-preserve-unknown-fields: true}
  placeholder: {type: string, nullable: true}
`)
	expectDropped(t, r, "spec.legacy const", "spec.placeholder enum", "spec.scope default", "spec.scope examples")
}

// A branch of anyOf or oneOf that allows null alone goes, making the field
// nullable (the one branch left allows null too, so its enum goes under
// allOf, unless the field's own enum refuses null); one that allows null
// beside other values makes the field nullable too, and one whose enum
// refuses null does not.
func TestBranchesThatAllowNullMakeTheFieldNullable(t *testing.T) {
	r := convert(t, `{
	  "type": "object", "additionalProperties": false,
	  "properties": {
	    "port": {"anyOf": [{"type": "integer", "minimum": 1}, {"const": null}]},
	    "flavour": {"oneOf": [{"enum": [null], "description": "unset"}, {"type": "string", "enum": ["plain", "fancy"]}]},
	    "serverName": {"anyOf": [{"type": "null", "default": null}, {"type": "string"}]},
	    "minAvailable": {"anyOf": [{"type": ["string", "null"]}, {"type": ["integer", "null"]}]},
	    "maxUnavailable": {"oneOf": [{"type": ["string", "null"]}, {"type": ["integer", "null"]}]},
	    "mode": {"type": ["string", "null"], "anyOf": [{"enum": ["a", null]}, {"pattern": "^x-"}]},
	    "either": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "string", "pattern": "^x-"}, {"type": "null"}]},
	    "narrowed": {"enum": ["a"], "anyOf": [{"type": "null"}, {"type": "string"}]},
	    "notNull": {"anyOf": [{"type": ["string", "null"], "enum": ["a"]}, {"type": "string", "pattern": "^x-"}]}
	  }
	}`)
	expectSchema(t, r.Schema, `
type: object
properties:
  port: {type: integer, minimum: 1, nullable: true}
  flavour: {type: string, nullable: true, allOf: [{enum: [plain, fancy]}]}
  serverName: {type: string, nullable: true}
  minAvailable: {x-kubernetes-int-or-string: true, nullable: true}
  maxUnavailable: {x-kubernetes-int-or-string: true, nullable: true}
  mode: {type: string, nullable: true, anyOf: [{allOf: [{enum: [a]}]}, {pattern: "^x-"}]}
  either: {type: string, nullable: true, anyOf: [{enum: [a, b]}, {pattern: "^x-"}]}
  narrowed: {type: string, nullable: true, enum: [a]}
  notNull: {type: string, anyOf: [{enum: [a]}, {pattern: "^x-"}]}
`)
	expectDropped(t, r)
}

func TestAllOfMergesItsBranches(t *testing.T) {
	r := convert(t, `{
	  "type": "object", "additionalProperties": false,
	  "properties": {
	    "db": {"allOf": [
	      {"$ref": "#/$defs/named"},
	      {"type": "object", "required": ["port"], "properties": {"port": {"type": "integer", "maximum": 65535}, "name": {"maxLength": 20}}},
	      {"properties": {"port": {"minimum": 1, "maximum": 9000}}}
	    ], "additionalProperties": false}
	  },
	  "$defs": {"named": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 63}}}}
	}`)
	expectSchema(t, r.Schema, `
type: object
properties:
  db:
    type: object
    required: [name, port]
    properties:
      name: {type: string, maxLength: 20}
      port: {type: integer, minimum: 1, maximum: 9000}
`)
	expectDropped(t, r)
}

func TestAnyOfAndOneOfKeepTheirChecksAndLendTheirStructure(t *testing.T) {
	r := convert(t, `{
	  "type": "object", "additionalProperties": false,
	  "properties": {
	    "auth": {
	      "type": "object", "additionalProperties": false,
	      "oneOf": [
	        {"required": ["password"], "properties": {"password": {"type": "string", "minLength": 8}}},
	        {"required": ["secretName"], "properties": {"secretName": {"type": "string", "description": "a Secret"}}}
	      ]
	    },
	    "mode": {"type": "string", "anyOf": [{"enum": ["a", "b"]}, {"pattern": "^x-"}]}
	  }
	}`)
	expectSchema(t, r.Schema, `
type: object
properties:
  auth:
    type: object
    properties:
      password: {type: string}
      secretName: {type: string, description: a Secret}
    oneOf:
    - required: [password]
      properties: {password: {minLength: 8}}
    - required: [secretName]
  mode:
    type: string
    anyOf:
    - enum: [a, b]
    - pattern: "^x-"
`)
	expectDropped(t, r)
}

func TestWhatACRDCannotHoldIsReportedWithItsPath(t *testing.T) {
	r := convert(t, `{
	  "type": "object", "additionalProperties": false,
	  "properties": {
	    "tags": {"type": "array", "items": {"type": "string", "format": "uri-reference"}, "uniqueItems": true},
	    "hosts": {"type": "array", "items": {"type": "object"}, "uniqueItems": true, "contains": {"type": "object"}},
	    "name": {"type": "string", "pattern": "^(?!admin).*$", "deprecated": true},
	    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
	    "when": {"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}, "x-custom": 1},
	    "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
	    "fixed": {"const": "v1"},
	    "sized": {"type": "integer", "minLength": 3}
	  }
	}`)
	expectSchema(t, r.Schema, `
type: object
properties:
  tags: {type: array, items: {type: string}, x-kubernetes-list-type: set}
  hosts: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  name: {type: string}
  ratio: {type: number, minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true}
  when: {type: object, x-kubernetes-preserve-unknown-fields: true}
  pair: {type: array, items: {x-kubernetes-preserve-unknown-fields: true}}
  fixed: {type: string, enum: [v1]}
  sized: {type: integer}
`)
	expectDropped(t, r,
		"spec.hosts contains", "spec.hosts uniqueItems",
		"spec.name deprecated", "spec.name pattern",
		"spec.pair items",
		"spec.sized minLength",
		"spec.tags[*] format",
		"spec.when if", "spec.when then", "spec.when x-custom",
	)
	for _, d := range r.Dropped {
		if d.Keyword == "format" && (d.At != "#/properties/tags/items/format" || !strings.Contains(d.Effect, "uri-reference")) {
			t.Errorf("the format's report %v does not say where and which", d)
		}
	}
}

func TestDefaultsAndRulesTheAPIServerRefusesAreDropped(t *testing.T) {
	r := convert(t, `{
	  "type": "object", "additionalProperties": false,
	  "properties": {
	    "replicas": {"type": "integer", "default": "three"},
	    "size": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith("}]}
	  }
	}`)
	expectSchema(t, r.Schema, `
type: object
properties:
  replicas: {type: integer}
  size: {type: string}
`)
	expectDropped(t, r, "spec.replicas default", "spec.size x-kubernetes-validations")
}

func TestRecursiveReferencesStopWithAFreeFormField(t *testing.T) {
	r := convert(t, `{
	  "type": "object", "additionalProperties": false,
	  "properties": {"tree": {"$ref": "#/$defs/node"}},
	  "$defs": {"node": {"type": "object", "additionalProperties": false, "properties": {
	    "name": {"type": "string"},
	    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
	  }}}
	}`)
	expectSchema(t, r.Schema, `
type: object
properties:
  tree:
    type: object
    properties:
      name: {type: string}
      children: {type: array, items: {x-kubernetes-preserve-unknown-fields: true}}
`)
	expectDropped(t, r, "spec.tree.children[*] $ref")
}

func TestDocumentsThatCannotBeMadeStructural(t *testing.T) {
	expectError(t, `{"type": "array"}`, "spec", "an array", "spec of a kind is an object")
	expectError(t, `{"properties": {"a": {"$ref": "other.json#/x"}}}`, "spec.a", "other.json#/x", "inside the document")
	expectError(t, `{"properties": {"a": {"$ref": "#/$defs/missing"}}}`, "spec.a", "#/$defs/missing", "nothing at")
	expectError(t, `{"properties": {"a": {"type": "strin"}}}`, "spec.a", `unknown type "strin"`)
	expectError(t, `{"properties": {"a": {"allOf": [{"type": "string"}, {"type": "integer"}]}}}`, "spec.a", "allOf", "nothing in common")
	expectError(t, `{"properties": {"a": {"type": "string", "enum": []}}}`, "spec.a", "enum allows no value")
	expectError(t, `{"properties": {"a": {"type": "integer", "anyOf": [{"type": "string"}]}}}`, "spec.a", "no branch of anyOf holds an integer")
	expectError(t, `{"properties": {"a": {"type": "string", "maxLength": -1}}}`, "spec.a", "maxLength")
	expectError(t, `not: [valid`, "spec", "neither JSON nor YAML")
	expectError(t, `[]`, "spec", "not an array")
}

// The operator's own chart: a schema written for Helm, with definitions,
// anyOf and null, converts whole.
func TestTheOperatorChartsOwnSchema(t *testing.T) {
	doc, err := os.ReadFile("../../../config/chart/values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	r := convert(t, string(doc))
	if _, ok := r.Schema.Properties["rbac"].Properties["extraRules"]; !ok {
		t.Fatalf("rbac.extraRules is missing from the converted schema")
	}
	expectDropped(t, r, "spec.tracing.sampleRatio anyOf")
}
