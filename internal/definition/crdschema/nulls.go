package crdschema

import (
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// How a CRD says "or null": nullable: true admits null, and nothing else
// does. The API server checks an enum against null as well and refuses it
// whatever the list holds (a JSON null in an enum is no value it can match),
// so null stays out of every enum; and it drops a default of null, storing
// none.

// foldNullBranches takes the branches of anyOf and oneOf that only allow
// null out of them, making the node nullable; one branch left is merged into
// the node, as allOf would be ("a string or null" is a nullable string).
// A branch that allows null beside other values makes the node nullable
// when it is converted (convertBranches).
func (n *nodeConversion) foldNullBranches() (map[string]any, error) {
	s := n.s
	for _, k := range []string{"anyOf", "oneOf"} {
		list, ok := s[k].([]any)
		if !ok {
			continue
		}
		var kept []any
		for _, b := range list {
			if isNullOnly(b) {
				n.nullable = true
				continue
			}
			kept = append(kept, b)
		}
		if len(kept) == len(list) {
			continue
		}
		s = copyMap(s)
		delete(s, k)
		switch len(kept) {
		case 0:
		case 1:
			branch, ok := kept[0].(map[string]any)
			if !ok {
				continue
			}
			resolved, rloc, err := n.c.resolve(branch, location{path: n.loc.path, at: n.loc.keyword(k), refs: n.loc.refs})
			if err != nil {
				return nil, err
			}
			if resolved == nil {
				continue
			}
			folded, err := n.c.foldAllOf(resolved, rloc)
			if err != nil {
				return nil, err
			}
			if err := n.c.mergeInto(s, orNull(folded), rloc); err != nil {
				return nil, err
			}
		default:
			s[k] = kept
		}
	}
	return s, nil
}

// orNull is branch b allowing null too, as the null branch beside it
// does: null joins its type list and its enum (const becomes an enum of
// two), so that the node's own enum, if any, still decides.
func orNull(b map[string]any) map[string]any {
	b = copyMap(b)
	if names, ok := b["type"]; ok && typeNames(names) != nil {
		b["type"] = append(slices.Clone(toAnys(typeNames(names))), "null")
	}
	if c, ok := b["const"]; ok {
		delete(b, "const")
		b["enum"] = []any{c, nil}
	} else if values, ok := b["enum"].([]any); ok {
		b["enum"] = append(slices.Clone(values), nil)
	}
	return b
}

func toAnys(names []string) []any {
	out := make([]any, 0, len(names)+1)
	for _, s := range names {
		out = append(out, s)
	}
	return out
}

// admitsNull tells whether a converted schema allows null: nullable, and
// no enum, which the API server checks against null too.
func admitsNull(s apiextensionsv1.JSONSchemaProps) bool {
	return s.Nullable && len(s.Enum) == 0
}

// nullOnlyKeywords may stand beside what makes a branch allow null alone:
// they describe it and check nothing else.
var nullOnlyKeywords = set("type", "const", "enum", "description", "title", "default", "examples", "$comment")

// isNullOnly tells whether branch b allows null and nothing else: type
// null, const null or enum [null], each alone or together.
func isNullOnly(b any) bool {
	m, ok := b.(map[string]any)
	if !ok {
		return false
	}
	for k := range m {
		if !nullOnlyKeywords[k] {
			return false
		}
	}
	names, typed := typeNames(m["type"]), m["type"] != nil
	values, listed := listedValues(m)
	onlyNullListed := listed && len(values) > 0 && !slices.ContainsFunc(values, func(v any) bool { return v != nil })
	switch {
	case typed && !slices.Contains(names, "null"):
		return false
	case listed:
		return onlyNullListed
	}
	return len(names) == 1
}

// listsNull tells whether the node's enum or const allows null.
func (n *nodeConversion) listsNull() bool {
	return slices.ContainsFunc(n.enumValues(), isNull)
}

func isNull(v any) bool { return v == nil }

// enumOf sets the values enum or const allows (listed: null among them, if
// any) as a CRD can hold them: a list without null is the enum; with null,
// the node is nullable and the other values are an enum under allOf, which
// the API server does not check against null; null alone cannot be said
// beside a type, and is reported.
func (n *nodeConversion) enumOf(keyword string, listed []any) {
	values := slices.DeleteFunc(slices.Clone(listed), isNull)
	switch {
	case len(listed) == 0:
	case len(values) == 0:
		n.c.drop(n.loc, keyword, "a CRD cannot allow null alone: null or "+describeValue(n.kind)+" is accepted")
	case len(values) < len(listed):
		n.out.AllOf = append(n.out.AllOf, apiextensionsv1.JSONSchemaProps{Enum: rawJSONs(values)})
	default:
		n.out.Enum = rawJSONs(values)
	}
}

// describeValue says what a value of a node of kind is, for a message.
func describeValue(kind string) string {
	switch kind {
	case kindAny:
		return "any value"
	case kindIntOrString:
		return "any integer or string"
	}
	return "any " + kind
}

func rawJSONs(values []any) []apiextensionsv1.JSON {
	out := make([]apiextensionsv1.JSON, 0, len(values))
	for _, v := range values {
		out = append(out, *rawJSON(v))
	}
	return out
}

// nonNull is v as the value of keyword k (default, example), or nothing
// for null, reported: the API server stores no default or example of null,
// and one written would differ from the CRD it stores at every comparison.
func (n *nodeConversion) nonNull(k string, v any) *apiextensionsv1.JSON {
	switch {
	case v != nil:
		return rawJSON(v)
	case k != "default":
		n.c.drop(n.loc, k, "the API server keeps no example of null: none is shown")
	case n.nullable:
		n.c.drop(n.loc, k, "the API server keeps no default of null: a field left out stays out, as without a default")
	default:
		n.c.drop(n.loc, k, "a default of null on a field that cannot be null: no default")
	}
	return nil
}
