package crdschema

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// junctors carries anyOf, oneOf and not as a CRD allows them: the structure
// of each branch (types, properties, items) moves out to the node, where
// a structural schema wants it, and the branch keeps only what it checks
// (required, enum, bounds, patterns). A branch of another type than the
// node can never hold and goes; branches left with nothing to check make
// the junctor say nothing (anyOf) or what cannot be told apart (oneOf).
func (n *nodeConversion) junctors() error {
	for _, k := range []string{"anyOf", "oneOf"} {
		branches, ok := n.branches[k]
		if !ok {
			continue
		}
		if n.kind == kindAny || n.kind == kindIntOrString {
			if !n.sameShape(branches) {
				n.c.drop(n.loc, k, fmt.Sprintf("the branches hold values of different types: %s", describeKind(n.kind)))
			}
			continue
		}
		var checks []apiextensionsv1.JSONSchemaProps
		vacuous := false
		for i, b := range branches {
			if b.Type != "" && b.Type != n.kind && !(n.kind == "number" && b.Type == "integer") {
				continue // never holds a value of the node's type
			}
			bloc := location{path: n.loc.path, at: fmt.Sprintf("%s/%d", n.loc.keyword(k), i), refs: n.loc.refs}
			n.hoist(&n.out, b, bloc)
			check := n.checksOf(b, bloc)
			if reflect.DeepEqual(check, apiextensionsv1.JSONSchemaProps{}) {
				vacuous = true
				continue
			}
			checks = append(checks, check)
		}
		switch {
		case len(checks) == 0 && !vacuous:
			return &Error{Path: n.loc.path, At: n.loc.keyword(k), Reason: fmt.Sprintf("no branch of %s holds %s", k, describeKind(n.kind))}
		case vacuous && k == "anyOf", len(checks) == 0:
		case vacuous:
			n.c.drop(n.loc, k, "some branches differ from the others only in their structure, which a CRD merges: which one holds is not checked")
		case k == "anyOf":
			n.out.AnyOf = checks
		default:
			n.out.OneOf = checks
		}
	}
	return n.not()
}

// sameShape tells whether branches describe nothing but the node's own
// kind of value (the integer and string branches of an int-or-string).
func (n *nodeConversion) sameShape(branches []apiextensionsv1.JSONSchemaProps) bool {
	if n.kind != kindIntOrString {
		return false
	}
	for _, b := range branches {
		if b.Type != "integer" && b.Type != "string" && !b.XIntOrString {
			return false
		}
	}
	return true
}

func describeKind(kind string) string {
	switch kind {
	case kindAny:
		return "any value is accepted"
	case kindIntOrString:
		return "an integer or a string"
	case "array", "integer", "object":
		return "an " + kind
	}
	return "a " + kind
}

func (n *nodeConversion) not() error {
	v, ok := n.get("not")
	if !ok {
		return nil
	}
	loc := location{path: n.loc.path, at: n.loc.keyword("not"), refs: n.loc.refs}
	b, err := n.c.convert(n.withNodeType(v), loc)
	if err != nil {
		return err
	}
	if b.Type != "" && b.Type != n.kind {
		return nil // a value of the node's type is never of the other
	}
	check := n.checksOf(b, loc)
	if reflect.DeepEqual(check, apiextensionsv1.JSONSchemaProps{}) {
		n.c.drop(n.loc, "not", "not says only something about the structure, which a CRD cannot refuse: not checked")
		return nil
	}
	n.out.Not = &check
	return nil
}

// hoist lays the structure of a branch into dst: its properties, items and
// map values, with their own structure. What a branch says about a field
// the node already describes otherwise stays with the node, and so does
// whether the node keeps fields it does not name (both must hold).
func (n *nodeConversion) hoist(dst *apiextensionsv1.JSONSchemaProps, b apiextensionsv1.JSONSchemaProps, loc location) {
	if dst.Description == "" {
		dst.Description = b.Description
	}
	for _, name := range slices.Sorted(maps.Keys(b.Properties)) {
		p := b.Properties[name]
		if dst.Properties == nil {
			dst.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
		}
		existing, ok := dst.Properties[name]
		if !ok {
			dst.Properties[name] = n.structureOf(p, loc.property(name, loc.at+"/properties/"+escapePointer(name)))
			continue
		}
		if existing.Type == p.Type {
			n.hoist(&existing, p, loc.property(name, loc.at+"/properties/"+escapePointer(name)))
			dst.Properties[name] = existing
		}
	}
	if b.Items != nil && b.Items.Schema != nil {
		if dst.Items == nil || dst.Items.Schema == nil {
			s := n.structureOf(*b.Items.Schema, loc.items(loc.at+"/items"))
			dst.Items = &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &s}
		} else if dst.Items.Schema.Type == b.Items.Schema.Type {
			n.hoist(dst.Items.Schema, *b.Items.Schema, loc.items(loc.at+"/items"))
		}
	}
	if b.AdditionalProperties != nil && b.AdditionalProperties.Schema != nil && dst.AdditionalProperties == nil && dst.Properties == nil {
		s := n.structureOf(*b.AdditionalProperties.Schema, loc.mapValues(loc.at+"/additionalProperties"))
		dst.AdditionalProperties = &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &s}
	}
}

// structureOf is s without what it checks: what a node outside a junctor
// says of a field that only a branch describes. A default there would
// apply whichever branch holds, so it goes.
func (n *nodeConversion) structureOf(s apiextensionsv1.JSONSchemaProps, loc location) apiextensionsv1.JSONSchemaProps {
	out := apiextensionsv1.JSONSchemaProps{
		Type: s.Type, Description: s.Description, Title: s.Title, Nullable: s.Nullable, Example: s.Example,
		XPreserveUnknownFields: s.XPreserveUnknownFields, XIntOrString: s.XIntOrString, XEmbeddedResource: s.XEmbeddedResource,
		XListType: s.XListType, XListMapKeys: s.XListMapKeys, XMapType: s.XMapType,
	}
	if s.Default != nil {
		n.c.dropped = append(n.c.dropped, Dropped{Path: loc.path, Keyword: "default", At: loc.at + "/default",
			Effect: "a default inside one branch of anyOf or oneOf would apply whichever branch holds: no default"})
	}
	for name, p := range s.Properties {
		if out.Properties == nil {
			out.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
		}
		out.Properties[name] = n.structureOf(p, loc.property(name, loc.at+"/properties/"+escapePointer(name)))
	}
	if s.Items != nil && s.Items.Schema != nil {
		items := n.structureOf(*s.Items.Schema, loc.items(loc.at+"/items"))
		out.Items = &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &items}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		values := n.structureOf(*s.AdditionalProperties.Schema, loc.mapValues(loc.at+"/additionalProperties"))
		out.AdditionalProperties = &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &values}
	}
	return out
}

// checksOf is what s checks of a value, without its structure: what a
// CRD allows inside a junctor. Checks a junctor cannot hold
// (x-kubernetes-validations, checks of a map's values) are reported.
func (n *nodeConversion) checksOf(s apiextensionsv1.JSONSchemaProps, loc location) apiextensionsv1.JSONSchemaProps {
	out := apiextensionsv1.JSONSchemaProps{
		Format: s.Format, Maximum: s.Maximum, ExclusiveMaximum: s.ExclusiveMaximum, Minimum: s.Minimum, ExclusiveMinimum: s.ExclusiveMinimum,
		MaxLength: s.MaxLength, MinLength: s.MinLength, Pattern: s.Pattern, MaxItems: s.MaxItems, MinItems: s.MinItems,
		MultipleOf: s.MultipleOf, Enum: s.Enum, MaxProperties: s.MaxProperties, MinProperties: s.MinProperties,
		Required: s.Required, AllOf: s.AllOf, AnyOf: s.AnyOf, OneOf: s.OneOf, Not: s.Not,
	}
	if len(s.XValidations) > 0 {
		n.c.dropped = append(n.c.dropped, Dropped{Path: loc.path, Keyword: "x-kubernetes-validations", At: loc.at,
			Effect: "a CRD holds validation rules outside anyOf, oneOf and not only: not checked"})
	}
	for name, p := range s.Properties {
		check := n.checksOf(p, loc.property(name, loc.at+"/properties/"+escapePointer(name)))
		if reflect.DeepEqual(check, apiextensionsv1.JSONSchemaProps{}) {
			continue
		}
		if out.Properties == nil {
			out.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
		}
		out.Properties[name] = check
	}
	if s.Items != nil && s.Items.Schema != nil {
		if check := n.checksOf(*s.Items.Schema, loc.items(loc.at+"/items")); !reflect.DeepEqual(check, apiextensionsv1.JSONSchemaProps{}) {
			out.Items = &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &check}
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		if check := n.checksOf(*s.AdditionalProperties.Schema, loc.mapValues(loc.at+"/additionalProperties")); !reflect.DeepEqual(check, apiextensionsv1.JSONSchemaProps{}) {
			n.c.dropped = append(n.c.dropped, Dropped{Path: loc.path, Keyword: "additionalProperties", At: loc.at + "/additionalProperties",
				Effect: "a CRD cannot check a map's values inside anyOf, oneOf or not: not checked"})
		}
	}
	return out
}
