package crdschema

import (
	"fmt"
	"maps"
	"slices"
)

// consumed are keywords a conversion reads without carrying them: the
// document's own bookkeeping, whose loss changes nothing.
var consumed = set("$schema", "$id", "id", "$defs", "definitions", "$comment", "$anchor", "$vocabulary", "$ref", "allOf")

// lost says, for the keywords a CRD has no place for, what the CRD does
// instead.
var lost = map[string]string{
	"if": "conditional checks (if/then/else) are not checked", "then": "conditional checks (if/then/else) are not checked",
	"else":         "conditional checks (if/then/else) are not checked",
	"dependencies": "fields that require others are not checked", "dependentRequired": "fields that require others are not checked",
	"dependentSchemas":      "fields that require others are not checked",
	"propertyNames":         "the names of fields are not checked",
	"unevaluatedProperties": "fields no other keyword covers are kept unchecked", "unevaluatedItems": "items no other keyword covers are kept unchecked",
	"contains": "what the list must contain is not checked", "minContains": "what the list must contain is not checked",
	"maxContains": "what the list must contain is not checked", "additionalItems": "items by position are not checked",
	"contentEncoding": "the encoding of the string is not checked", "contentMediaType": "the media type of the string is not checked",
	"contentSchema": "the content of the string is not checked",
	"readOnly":      "an annotation only: not shown", "writeOnly": "an annotation only: not shown", "deprecated": "an annotation only: not shown",
	"$dynamicRef": "dynamic references are not resolved: any value is accepted", "$recursiveRef": "recursive references are not resolved: any value is accepted",
	"$dynamicAnchor": "an annotation only", "$recursiveAnchor": "an annotation only",
}

// typeKeywords are the keywords that only check values of one type.
var typeKeywords = map[string]string{
	"properties": "object", "additionalProperties": "object", "patternProperties": "object", "required": "object",
	"minProperties": "object", "maxProperties": "object",
	"items": "array", "prefixItems": "array", "minItems": "array", "maxItems": "array", "uniqueItems": "array",
	"minLength": "string", "maxLength": "string", "pattern": "string",
	"minimum": "number", "maximum": "number", "exclusiveMinimum": "number", "exclusiveMaximum": "number", "multipleOf": "number",
	"format": "string or number",
}

// reportUnused reports every keyword of the node the conversion did not
// carry: what a CRD has no place for, what checks another type than the
// node holds, and what is no JSON Schema keyword at all.
func (n *nodeConversion) reportUnused() {
	for _, k := range slices.Sorted(maps.Keys(n.s)) {
		if n.used[k] || consumed[k] {
			continue
		}
		if effect, ok := lost[k]; ok {
			n.c.drop(n.loc, k, effect)
			continue
		}
		if t, ok := typeKeywords[k]; ok {
			n.c.drop(n.loc, k, fmt.Sprintf("checks %s values, and the field holds %s: not checked", t, holds(n.kind)))
			continue
		}
		n.c.drop(n.loc, k, "not a keyword of JSON Schema that a CRD holds: ignored")
	}
}

// holds says what a node of kind holds.
func holds(kind string) string {
	switch kind {
	case kindAny:
		return "values of any type"
	case kindIntOrString:
		return "an integer or a string"
	case "array", "integer", "object":
		return "an " + kind
	}
	return "a " + kind
}
