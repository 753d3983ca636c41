package crdschema

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
)

// foldAllOf merges the branches of s's allOf into s: a value must satisfy
// each, so their properties and required fields add up, their types
// intersect and the tighter of two bounds holds. A property or items in two
// branches becomes an allOf of its own, folded when that node is converted.
// What two branches both say and cannot be merged (two patterns, two
// anyOf) keeps the first and reports the other.
func (c *converter) foldAllOf(s map[string]any, loc location) (map[string]any, error) {
	branches, ok := s["allOf"]
	if !ok {
		return s, nil
	}
	list, ok := branches.([]any)
	if !ok {
		return nil, &Error{Path: loc.path, At: loc.keyword("allOf"), Reason: "allOf is " + jsonType(branches) + ", not an array of schemas"}
	}
	acc := make(map[string]any, len(s))
	for k, v := range s {
		if k != "allOf" {
			acc[k] = v
		}
	}
	for i, b := range list {
		bloc := location{path: loc.path, at: loc.keyword("allOf") + "/" + strconv.Itoa(i), refs: loc.refs}
		var branch map[string]any
		switch t := b.(type) {
		case bool:
			if !t {
				return nil, bloc.errorf("allOf holds the schema false, which accepts no value")
			}
			continue
		case map[string]any:
			resolved, rloc, err := c.resolve(t, bloc)
			if err != nil {
				return nil, err
			}
			if resolved == nil {
				continue
			}
			if branch, err = c.foldAllOf(resolved, rloc); err != nil {
				return nil, err
			}
			bloc = rloc
		default:
			return nil, bloc.errorf("a schema is an object or a boolean, not %s", jsonType(b))
		}
		if err := c.mergeInto(acc, branch, bloc); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// tighter says, for the bounds, which of two values holds when both must.
var tighter = map[string]func(a, b float64) bool{
	"minimum": func(a, b float64) bool { return b > a }, "exclusiveMinimum": func(a, b float64) bool { return b > a },
	"minLength": func(a, b float64) bool { return b > a }, "minItems": func(a, b float64) bool { return b > a },
	"minProperties": func(a, b float64) bool { return b > a },
	"maximum":       func(a, b float64) bool { return b < a }, "exclusiveMaximum": func(a, b float64) bool { return b < a },
	"maxLength": func(a, b float64) bool { return b < a }, "maxItems": func(a, b float64) bool { return b < a },
	"maxProperties": func(a, b float64) bool { return b < a },
}

// mergeInto lays branch over acc as allOf means it.
func (c *converter) mergeInto(acc, branch map[string]any, bloc location) error {
	for _, k := range slices.Sorted(maps.Keys(branch)) {
		v := branch[k]
		old, has := acc[k]
		if !has {
			acc[k] = v
			continue
		}
		switch k {
		case "$defs", "definitions", "$schema", "$id", "$comment", "description", "title", "examples":
			// The first says it.
		case "properties":
			acc[k] = mergeProperties(old, v, func(a, b any) any { return map[string]any{"allOf": []any{a, b}} })
		case "items", "additionalProperties":
			acc[k] = map[string]any{"allOf": []any{old, v}}
		case "required":
			acc[k] = unionStrings(old, v)
		case "type":
			merged, err := intersectTypes(old, v)
			if err != nil {
				return &Error{Path: bloc.path, At: bloc.keyword("type"), Reason: "allOf: " + err.Error()}
			}
			acc[k] = merged
		case "enum":
			acc[k] = intersectValues(old, v)
		default:
			if better, ok := tighter[k]; ok {
				if a, b, ok := numbers(old, v); ok && better(a, b) {
					acc[k] = v
				}
				continue
			}
			if !reflect.DeepEqual(old, v) {
				c.drop(bloc, k, fmt.Sprintf("allOf: another branch says %s too; the first one holds", k))
			}
		}
	}
	return nil
}

func unionStrings(a, b any) any {
	var out []any
	seen := map[string]bool{}
	for _, list := range []any{a, b} {
		items, _ := list.([]any)
		for _, item := range items {
			if s, ok := item.(string); ok && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// intersectTypes intersects two type keywords (a name or a list of names).
func intersectTypes(a, b any) (any, error) {
	as, bs := typeNames(a), typeNames(b)
	var out []any
	for _, t := range as {
		if slices.Contains(bs, t) || (t == "integer" && slices.Contains(bs, "number")) {
			out = append(out, t)
		} else if t == "number" && slices.Contains(bs, "integer") {
			out = append(out, "integer")
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the branches' types %v and %v have nothing in common", as, bs)
	}
	if len(out) == 1 {
		return out[0], nil
	}
	return out, nil
}

func typeNames(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, item := range t {
			if s, ok := item.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func intersectValues(a, b any) any {
	as, _ := a.([]any)
	bs, _ := b.([]any)
	out := []any{}
	for _, x := range as {
		for _, y := range bs {
			if reflect.DeepEqual(x, y) {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

func numbers(a, b any) (float64, float64, bool) {
	x, ok1 := number(a)
	y, ok2 := number(b)
	return x, y, ok1 && ok2
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	}
	return 0, false
}
