package crdschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// The kinds of value a node holds beside the JSON types.
const (
	kindAny         = "any"           // any value, kept as it is
	kindIntOrString = "int-or-string" // x-kubernetes-int-or-string
)

// maxDepth bounds how deep a document may nest, so that a hostile one
// cannot exhaust the stack.
const maxDepth = 200

// node converts a node whose $ref is resolved and allOf folded.
func (c *converter) node(s map[string]any, loc location) (apiextensionsv1.JSONSchemaProps, error) {
	if strings.Count(loc.path, ".")+strings.Count(loc.path, "[") > maxDepth {
		return apiextensionsv1.JSONSchemaProps{}, loc.errorf("the schema nests deeper than %d levels", maxDepth)
	}
	n := &nodeConversion{c: c, s: s, loc: loc, used: map[string]bool{}}
	s, err := n.foldNullBranches()
	if err != nil {
		return apiextensionsv1.JSONSchemaProps{}, err
	}
	n.s = s
	if err := n.convertBranches(); err != nil {
		return apiextensionsv1.JSONSchemaProps{}, err
	}
	if err := n.typeOf(); err != nil {
		return apiextensionsv1.JSONSchemaProps{}, err
	}
	steps := []func() error{n.annotations, n.extensions, n.typed, n.junctors}
	for _, step := range steps {
		if err := step(); err != nil {
			return apiextensionsv1.JSONSchemaProps{}, err
		}
	}
	n.reportUnused()
	if n.kind == kindAny {
		yes := true
		n.out.XPreserveUnknownFields = &yes
	}
	return n.out, nil
}

// nodeConversion is the conversion of one node: the keywords it read (so
// that every other one is reported) and what it made.
type nodeConversion struct {
	c    *converter
	s    map[string]any
	loc  location
	used map[string]bool

	kind     string // a JSON Schema type, kindAny or kindIntOrString
	nullable bool
	branches map[string][]apiextensionsv1.JSONSchemaProps // anyOf, oneOf, converted
	out      apiextensionsv1.JSONSchemaProps
}

func (n *nodeConversion) get(k string) (any, bool) {
	v, ok := n.s[k]
	if ok {
		n.used[k] = true
	}
	return v, ok
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// convertBranches converts the branches of anyOf and oneOf, whose types
// the node's type may be inferred from.
func (n *nodeConversion) convertBranches() error {
	for _, k := range []string{"anyOf", "oneOf"} {
		v, ok := n.get(k)
		if !ok {
			continue
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return &Error{Path: n.loc.path, At: n.loc.keyword(k), Reason: k + " is " + jsonType(v) + ", not a non-empty array of schemas"}
		}
		if n.branches == nil {
			n.branches = map[string][]apiextensionsv1.JSONSchemaProps{}
		}
		for i, b := range list {
			bloc := location{path: n.loc.path, at: fmt.Sprintf("%s/%d", n.loc.keyword(k), i), refs: n.loc.refs}
			if t, ok := b.(bool); ok && !t {
				continue // a branch that accepts nothing changes nothing
			}
			converted, err := n.c.convert(n.withNodeType(b), bloc)
			if err != nil {
				return err
			}
			// A branch that allows null makes the node allow it: the API
			// server checks no branch against null. Two branches of oneOf
			// that both allow null refuse it in JSON Schema; a CRD cannot
			// say that, and the chart meant null to be allowed.
			n.nullable = n.nullable || admitsNull(converted)
			n.branches[k] = append(n.branches[k], converted)
		}
	}
	return nil
}

// withNodeType is a branch of a junctor of the node, with the node's type when
// it names none of its own: a value the branch checks has that type.
func (n *nodeConversion) withNodeType(b any) any {
	m, ok := b.(map[string]any)
	t, typed := n.s["type"]
	if !ok || !typed {
		return b
	}
	if _, has := m["type"]; has {
		return b
	}
	if _, ref := m["$ref"]; ref {
		return b
	}
	m = copyMap(m)
	m["type"] = t
	return m
}

// typeOf decides what the node holds: its type keyword (a list with null
// makes it nullable, and so does null in its enum or const; integer and
// string make it int-or-string; number swallows integer), or, without one,
// what its keywords imply.
func (n *nodeConversion) typeOf() error {
	if v, ok := n.get("nullable"); ok && v == true {
		n.nullable = true
	}
	if n.listsNull() {
		n.nullable = true
	}
	v, ok := n.get("type")
	if !ok {
		n.kind = n.inferred()
		n.setType()
		return nil
	}
	names := typeNames(v)
	if len(names) == 0 {
		return &Error{Path: n.loc.path, At: n.loc.keyword("type"), Reason: "type is " + jsonType(v) + ", not a type name or a list of them"}
	}
	var kept []string
	for _, t := range names {
		switch t {
		case "null":
			n.nullable = true
		case "string", "number", "integer", "boolean", "object", "array":
			if !slices.Contains(kept, t) {
				kept = append(kept, t)
			}
		default:
			return &Error{Path: n.loc.path, At: n.loc.keyword("type"), Reason: fmt.Sprintf("unknown type %q", t)}
		}
	}
	if slices.Contains(kept, "number") {
		kept = slices.DeleteFunc(kept, func(t string) bool { return t == "integer" })
	}
	slices.Sort(kept)
	switch {
	case len(kept) == 0:
		n.c.drop(n.loc, "type", "a field that may only be null: any value is accepted")
		n.kind = kindAny
	case len(kept) == 1:
		n.kind = kept[0]
	case len(kept) == 2 && kept[0] == "integer" && kept[1] == "string":
		n.kind = kindIntOrString
	default:
		n.c.drop(n.loc, "type", fmt.Sprintf("a CRD field has one type (or integer-or-string): any value is accepted instead of %s", strings.Join(kept, ", ")))
		n.kind = kindAny
	}
	n.setType()
	return nil
}

func (n *nodeConversion) setType() {
	switch n.kind {
	case kindAny:
	case kindIntOrString:
		n.out.XIntOrString = true
	default:
		n.out.Type = n.kind
	}
	n.out.Nullable = n.nullable
}

// inferred is the type a node without a type keyword holds, as far as its
// keywords say: object for properties, array for items, the type of every
// enum value, the one type every anyOf/oneOf branch has; else any value.
func (n *nodeConversion) inferred() string {
	for _, k := range []string{"properties", "additionalProperties", "patternProperties", "required", "minProperties", "maxProperties"} {
		if _, ok := n.s[k]; ok {
			return "object"
		}
	}
	for _, k := range []string{"items", "prefixItems", "minItems", "maxItems", "uniqueItems"} {
		if _, ok := n.s[k]; ok {
			return "array"
		}
	}
	if values := n.enumValues(); len(values) > 0 {
		return valuesType(values)
	}
	return n.branchType()
}

// enumValues are the values enum or const allows.
func (n *nodeConversion) enumValues() []any {
	values, _ := listedValues(n.s)
	return values
}

// listedValues are the values the const or enum of schema s allows, and
// whether it has either.
func listedValues(s map[string]any) ([]any, bool) {
	if v, ok := s["const"]; ok {
		return []any{v}, true
	}
	v, ok := s["enum"]
	values, _ := v.([]any)
	return values, ok
}

func valuesType(values []any) string {
	kinds := map[string]bool{}
	for _, v := range values {
		switch t := v.(type) {
		case nil:
		case string:
			kinds["string"] = true
		case bool:
			kinds["boolean"] = true
		case json.Number:
			if _, err := t.Int64(); err == nil {
				kinds["integer"] = true
			} else {
				kinds["number"] = true
			}
		case []any:
			kinds["array"] = true
		case map[string]any:
			kinds["object"] = true
		}
	}
	if kinds["number"] && kinds["integer"] {
		delete(kinds, "integer")
	}
	if len(kinds) != 1 {
		return kindAny
	}
	for k := range kinds {
		return k
	}
	return kindAny
}

// branchType is the type every branch of anyOf and oneOf has, if they
// agree; integer and string branches make an int-or-string.
func (n *nodeConversion) branchType() string {
	types := map[string]bool{}
	for _, list := range n.branches {
		for _, b := range list {
			switch {
			case b.XIntOrString:
				types["integer"], types["string"] = true, true
			case b.Type == "":
				return kindAny
			default:
				types[b.Type] = true
			}
		}
	}
	switch {
	case len(types) == 1:
		for t := range types {
			return t
		}
	case len(types) == 2 && types["integer"] && types["string"]:
		return kindIntOrString
	case len(types) == 2 && types["integer"] && types["number"]:
		return "number"
	}
	return kindAny
}

// annotations carries what describes the value rather than checks it:
// description, title, default, examples, and enum or const.
func (n *nodeConversion) annotations() error {
	for _, k := range []string{"description", "title"} {
		if v, ok := n.get(k); ok {
			s, isString := v.(string)
			if !isString {
				return &Error{Path: n.loc.path, At: n.loc.keyword(k), Reason: k + " is " + jsonType(v) + ", not a string"}
			}
			if k == "description" {
				n.out.Description = s
			} else {
				n.out.Title = s
			}
		}
	}
	if v, ok := n.get("default"); ok {
		n.out.Default = n.nonNull("default", v)
	}
	if v, ok := n.get("example"); ok {
		n.out.Example = n.nonNull("example", v)
	}
	if v, ok := n.get("examples"); ok {
		if list, isList := v.([]any); isList && len(list) > 0 && n.out.Example == nil {
			n.out.Example = n.nonNull("examples", list[0])
		}
	}
	return n.enum()
}

func (n *nodeConversion) enum() error {
	values := n.enumValues()
	_, hasConst := n.get("const")
	v, hasEnum := n.get("enum")
	if hasEnum {
		if _, ok := v.([]any); !ok {
			return &Error{Path: n.loc.path, At: n.loc.keyword("enum"), Reason: "enum is " + jsonType(v) + ", not an array"}
		}
	}
	if hasConst && hasEnum {
		n.c.drop(n.loc, "enum", "const says the one value allowed; enum is not needed")
	}
	if hasEnum && len(values) == 0 && !hasConst {
		return &Error{Path: n.loc.path, At: n.loc.keyword("enum"), Reason: "enum allows no value"}
	}
	keyword := "enum"
	if hasConst {
		keyword = "const"
	}
	n.enumOf(keyword, values)
	return nil
}

func rawJSON(v any) *apiextensionsv1.JSON {
	raw, err := json.Marshal(v)
	if err != nil { // a decoded document always encodes
		raw = []byte("null")
	}
	return &apiextensionsv1.JSON{Raw: raw}
}

// extensions carries the x-kubernetes-* keywords a chart may already give
// (x-kubernetes-validations, list types, int-or-string…) as they are.
func (n *nodeConversion) extensions() error {
	ext := map[string]any{}
	for k, v := range n.s {
		if strings.HasPrefix(k, "x-kubernetes-") {
			n.used[k] = true
			ext[k] = v
		}
	}
	if len(ext) == 0 {
		return nil
	}
	raw, err := json.Marshal(ext)
	if err != nil {
		return n.loc.errorf("x-kubernetes-*: %v", err)
	}
	var given apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(raw, &given); err != nil {
		return n.loc.errorf("x-kubernetes-*: %v", err)
	}
	o := &n.out
	if given.XPreserveUnknownFields != nil {
		o.XPreserveUnknownFields = given.XPreserveUnknownFields
	}
	if given.XIntOrString {
		o.XIntOrString, o.Type, n.kind = true, "", kindIntOrString
	}
	o.XEmbeddedResource = o.XEmbeddedResource || given.XEmbeddedResource
	o.XListMapKeys, o.XListType, o.XMapType = given.XListMapKeys, given.XListType, given.XMapType
	o.XValidations = given.XValidations
	return nil
}
