package crdschema

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// resolve follows s's $ref, if any, to the node it names inside the
// document, with s's other keywords laid over it (draft 2019-09 and later
// apply them beside the reference; earlier drafts ignore them, and a schema
// that says more than the reference loses nothing by it). The location
// returned is the target's, with the reference on its stack. A reference
// back into a node being resolved is a cycle: resolve reports it and
// returns nil, and the node accepts anything from there down.
func (c *converter) resolve(s map[string]any, loc location) (map[string]any, location, error) {
	for hops := 0; ; hops++ {
		ref, ok := s["$ref"]
		if !ok {
			return s, loc, nil
		}
		pointer, isString := ref.(string)
		if !isString {
			return nil, loc, loc.errorf("$ref is %s, not a string", jsonType(ref))
		}
		if slices.Contains(loc.refs, pointer) || hops > 64 {
			c.drop(loc, "$ref", "the reference "+pointer+" is recursive: a CRD schema cannot be, so any value is accepted from here down")
			return nil, loc, nil
		}
		target, err := c.lookup(pointer)
		if err != nil {
			return nil, loc, &Error{Path: loc.path, At: loc.keyword("$ref"), Reason: err.Error()}
		}
		switch t := target.(type) {
		case bool:
			if !t {
				return nil, loc, &Error{Path: loc.path, At: loc.keyword("$ref"), Reason: pointer + " is the schema false, which accepts no value"}
			}
			target = map[string]any{}
		case map[string]any:
		default:
			return nil, loc, &Error{Path: loc.path, At: loc.keyword("$ref"), Reason: pointer + " names " + jsonType(target) + ", not a schema"}
		}
		merged := overlay(target.(map[string]any), s)
		loc = location{path: loc.path, at: pointer, refs: append(slices.Clone(loc.refs), pointer)}
		s = merged
	}
}

// overlay is target with the keywords of referrer other than $ref laid over
// it; target's own $ref, if any, is followed next.
func overlay(target, referrer map[string]any) map[string]any {
	out := make(map[string]any, len(target)+len(referrer))
	for k, v := range target {
		out[k] = v
	}
	delete(out, "$ref")
	for k, v := range referrer {
		if k == "$ref" {
			continue
		}
		if k == "properties" {
			out[k] = mergeProperties(out[k], v, func(_, referrer any) any { return referrer })
			continue
		}
		out[k] = v
	}
	if ref, ok := target["$ref"]; ok {
		out["$ref"] = ref
	}
	return out
}

// mergeProperties lays the properties b over a's: a property both name
// becomes both(a's, b's). Anything but two objects is b.
func mergeProperties(a, b any, both func(old, new any) any) any {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		return b
	}
	out := maps.Clone(am)
	for k, v := range bm {
		if old, ok := out[k]; ok {
			v = both(old, v)
		}
		out[k] = v
	}
	return out
}

// lookup finds what a reference inside the document names: "#" is the
// root, "#/a/b" a JSON pointer (RFC 6901, percent-encoded as a URI
// fragment). References to other documents cannot be followed offline.
func (c *converter) lookup(ref string) (any, error) {
	fragment, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, &refError{ref: ref, reason: "only references inside the document (#/$defs/…) can be resolved; inline the schema it names"}
	}
	if fragment != "" && !strings.HasPrefix(fragment, "/") {
		return nil, &refError{ref: ref, reason: "anchors ($anchor) are not supported; use a JSON pointer such as #/$defs/name"}
	}
	decoded, err := url.PathUnescape(fragment)
	if err != nil {
		return nil, &refError{ref: ref, reason: "not a valid URI fragment: " + err.Error()}
	}
	node := c.root
	if decoded == "" {
		return node, nil
	}
	for _, token := range strings.Split(decoded[1:], "/") {
		token = strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			next, ok := n[token]
			if !ok {
				return nil, &refError{ref: ref, reason: "the document has nothing at " + token}
			}
			node = next
		case []any:
			i, err := strconv.Atoi(token)
			if err != nil || i < 0 || i >= len(n) {
				return nil, &refError{ref: ref, reason: "no item " + token + " in the array"}
			}
			node = n[i]
		default:
			return nil, &refError{ref: ref, reason: "the document has nothing at " + token}
		}
	}
	return node, nil
}

type refError struct{ ref, reason string }

func (e *refError) Error() string { return "$ref " + e.ref + ": " + e.reason }
