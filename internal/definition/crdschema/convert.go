package crdschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// Result is a converted schema and what the conversion could not carry.
type Result struct {
	// Schema is the structural schema of the object the document describes
	// (the spec of a kind).
	Schema apiextensionsv1.JSONSchemaProps
	// Dropped are the keywords the schema lost, in path order.
	Dropped []Dropped
}

// Dropped is a keyword of the document a CRD cannot hold, and what the CRD
// does instead.
type Dropped struct {
	// Path is the value the keyword applied to: spec.image.tag,
	// spec.hosts[*], spec.labels.* (the values of a map).
	Path string `json:"path"`
	// Keyword is the keyword, such as patternProperties.
	Keyword string `json:"keyword"`
	// At is where the keyword is written in the document, a JSON pointer
	// such as #/$defs/image/properties/tag/format.
	At string `json:"at"`
	// Effect says what the CRD does instead.
	Effect string `json:"effect"`
}

func (d Dropped) String() string {
	return fmt.Sprintf("%s: %s (%s): %s", d.Path, d.Keyword, d.At, d.Effect)
}

// Error is a document that cannot be made a structural schema: where, and why.
type Error struct {
	// Path is the value's path, At where the document says it.
	Path, At string
	Reason   string
}

func (e *Error) Error() string {
	if e.At == "" {
		return fmt.Sprintf("%s: %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("%s (%s): %s", e.Path, e.At, e.Reason)
}

// Root is the path the converted document's values have: an instance's spec.
const Root = "spec"

// Convert converts a JSON Schema document (JSON, or YAML) describing an
// object into a structural schema. Its root must describe an object.
func Convert(document []byte) (Result, error) {
	root, err := decode(document)
	if err != nil {
		return Result{}, &Error{Path: Root, At: "#", Reason: err.Error()}
	}
	c := &converter{root: root}
	loc := location{path: Root, at: "#"}
	if b, ok := root.(bool); ok && b {
		root = map[string]any{"type": "object"}
	}
	s, err := c.convert(root, loc)
	if err != nil {
		return Result{}, err
	}
	if s.Type != "object" && !isFreeForm(s) {
		return Result{}, &Error{Path: Root, At: "#", Reason: fmt.Sprintf("the schema describes %s: the spec of a kind is an object", describeType(s))}
	}
	if s.Type == "" {
		s.Type = "object"
	}
	if err := c.validate(&s); err != nil {
		return Result{}, err
	}
	sort.SliceStable(c.dropped, func(i, j int) bool {
		a, b := c.dropped[i], c.dropped[j]
		return a.Path < b.Path || (a.Path == b.Path && a.Keyword < b.Keyword)
	})
	return Result{Schema: s, Dropped: c.dropped}, nil
}

// decode reads a document with its numbers as written (json.Number), so
// that defaults and enums keep their exact values.
func decode(document []byte) (any, error) {
	trimmed := bytes.TrimSpace(document)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("the schema is empty")
	}
	if trimmed[0] != '{' && trimmed[0] != '[' {
		converted, err := yaml.YAMLToJSON(trimmed)
		if err != nil {
			return nil, fmt.Errorf("the schema is neither JSON nor YAML: %w", err)
		}
		trimmed = converted
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the schema is not valid JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("the schema holds more than one JSON value")
	}
	switch v.(type) {
	case map[string]any, bool:
		return v, nil
	}
	return nil, fmt.Errorf("a schema is an object or a boolean, not %s", jsonType(v))
}

// converter converts one document.
type converter struct {
	root    any
	dropped []Dropped
}

// location is where a node is: the path of its value, where the document
// writes it, and the $refs followed to reach it (to stop at a cycle).
type location struct {
	path string
	at   string
	refs []string
}

func (l location) property(name, at string) location {
	path := l.path + "." + name
	if strings.ContainsAny(name, ".[]* ") || name == "" {
		path = l.path + "[" + fmt.Sprintf("%q", name) + "]"
	}
	return location{path: path, at: at, refs: l.refs}
}

func (l location) items(at string) location {
	return location{path: l.path + "[*]", at: at, refs: l.refs}
}

func (l location) mapValues(at string) location {
	return location{path: l.path + ".*", at: at, refs: l.refs}
}

// keyword is where keyword k of this node is written.
func (l location) keyword(k string) string { return l.at + "/" + escapePointer(k) }

func (l location) errorf(format string, args ...any) error {
	return &Error{Path: l.path, At: l.at, Reason: fmt.Sprintf(format, args...)}
}

// drop records keyword k of the node at l as lost, with its effect.
func (c *converter) drop(l location, k, effect string) {
	c.dropped = append(c.dropped, Dropped{Path: l.path, Keyword: k, At: l.keyword(k), Effect: effect})
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// convert converts one schema node: a boolean or an object.
func (c *converter) convert(v any, loc location) (apiextensionsv1.JSONSchemaProps, error) {
	switch s := v.(type) {
	case bool:
		if s {
			return freeForm(), nil
		}
		return apiextensionsv1.JSONSchemaProps{}, loc.errorf("the schema false accepts no value; a CRD cannot say that here")
	case map[string]any:
		resolved, rloc, err := c.resolve(s, loc)
		if err != nil {
			return apiextensionsv1.JSONSchemaProps{}, err
		}
		if resolved == nil { // a cycle: not validated below
			return freeForm(), nil
		}
		folded, err := c.foldAllOf(resolved, rloc)
		if err != nil {
			return apiextensionsv1.JSONSchemaProps{}, err
		}
		return c.node(folded, rloc)
	}
	return apiextensionsv1.JSONSchemaProps{}, loc.errorf("a schema is an object or a boolean, not %s", jsonType(v))
}

// freeForm is a node that accepts any value and keeps it.
func freeForm() apiextensionsv1.JSONSchemaProps {
	yes := true
	return apiextensionsv1.JSONSchemaProps{XPreserveUnknownFields: &yes}
}

func isFreeForm(s apiextensionsv1.JSONSchemaProps) bool {
	return s.Type == "" && !s.XIntOrString && s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

func describeType(s apiextensionsv1.JSONSchemaProps) string {
	switch {
	case s.XIntOrString:
		return "an integer or a string"
	case s.Type == "":
		return "any value"
	case s.Type == "array" || s.Type == "integer" || s.Type == "object":
		return "an " + s.Type
	}
	return "a " + s.Type
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
