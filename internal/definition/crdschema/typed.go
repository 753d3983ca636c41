package crdschema

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// typed carries the keywords of the node's type; those of other types are
// reported by reportUnused.
func (n *nodeConversion) typed() error {
	switch n.kind {
	case "object":
		return n.object()
	case "array":
		return n.array()
	case "string":
		return n.str()
	case "number", "integer":
		return n.numeric()
	}
	return nil
}

// object carries properties, required, additionalProperties (or one
// patternProperties) and the bounds on the number of fields. An object
// keeps fields its schema does not name, as JSON Schema allows them, unless
// additionalProperties is false.
func (n *nodeConversion) object() error {
	o := &n.out
	if v, ok := n.get("properties"); ok {
		props, isMap := v.(map[string]any)
		if !isMap {
			return &Error{Path: n.loc.path, At: n.loc.keyword("properties"), Reason: "properties is " + jsonType(v) + ", not an object"}
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			ploc := n.loc.property(name, n.loc.keyword("properties")+"/"+escapePointer(name))
			if b, isBool := props[name].(bool); isBool && !b {
				n.c.dropped = append(n.c.dropped, Dropped{Path: ploc.path, Keyword: "false", At: ploc.at,
					Effect: "the field may not be set: it is pruned rather than refused"})
				continue
			}
			child, err := n.c.convert(props[name], ploc)
			if err != nil {
				return err
			}
			if o.Properties == nil {
				o.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
			}
			o.Properties[name] = child
		}
	}
	preserve, err := n.additional()
	if err != nil {
		return err
	}
	if preserve {
		yes := true
		o.XPreserveUnknownFields = &yes
	}
	if err := n.required(preserve); err != nil {
		return err
	}
	for _, k := range []string{"minProperties", "maxProperties"} {
		if err := n.count(k); err != nil {
			return err
		}
	}
	return nil
}

// additional carries additionalProperties (and patternProperties, which a
// CRD lacks) and tells whether unknown fields are kept.
func (n *nodeConversion) additional() (bool, error) {
	o := &n.out
	v, has := n.get("additionalProperties")
	patterns, hasPatterns := n.get("patternProperties")
	if hasPatterns {
		pm, ok := patterns.(map[string]any)
		if !ok {
			return false, &Error{Path: n.loc.path, At: n.loc.keyword("patternProperties"), Reason: "patternProperties is " + jsonType(patterns) + ", not an object"}
		}
		if len(pm) == 1 && o.Properties == nil && (!has || v == true) {
			for pattern, schema := range pm {
				vloc := n.loc.mapValues(n.loc.keyword("patternProperties") + "/" + escapePointer(pattern))
				child, err := n.c.convert(schema, vloc)
				if err != nil {
					return false, err
				}
				o.AdditionalProperties = &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &child}
				n.c.drop(n.loc, "patternProperties", fmt.Sprintf("the values of every field are checked, but their names are not checked against %q", pattern))
			}
			return false, nil
		}
		n.c.drop(n.loc, "patternProperties", "a CRD has no patternProperties: fields other than those named are kept unchecked")
		if !has {
			return true, nil
		}
	}
	switch t := v.(type) {
	case nil:
		if has {
			return false, &Error{Path: n.loc.path, At: n.loc.keyword("additionalProperties"), Reason: "additionalProperties is null, not a schema"}
		}
		return true, nil
	case bool:
		// false: the CRD prunes fields it does not name, and the API server
		// refuses them to a client that asks for strict field validation
		// (kubectl's default); a CRD cannot say it otherwise.
		return t, nil
	case map[string]any:
		if len(t) == 0 {
			return true, nil
		}
		if o.Properties != nil {
			n.c.drop(n.loc, "additionalProperties", "a CRD cannot check other fields beside named properties: fields the schema does not name are kept unchecked")
			return true, nil
		}
		child, err := n.c.convert(t, n.loc.mapValues(n.loc.keyword("additionalProperties")))
		if err != nil {
			return false, err
		}
		o.AdditionalProperties = &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &child}
		return false, nil
	}
	return false, &Error{Path: n.loc.path, At: n.loc.keyword("additionalProperties"), Reason: "additionalProperties is " + jsonType(v) + ", not a schema"}
}

// required carries the names of required fields; one the schema does not
// declare would be pruned before it is checked, unless unknown fields are
// kept.
func (n *nodeConversion) required(preserve bool) error {
	v, ok := n.get("required")
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		return &Error{Path: n.loc.path, At: n.loc.keyword("required"), Reason: "required is " + jsonType(v) + ", not an array of names"}
	}
	for _, item := range list {
		name, isString := item.(string)
		if !isString {
			return &Error{Path: n.loc.path, At: n.loc.keyword("required"), Reason: "required holds " + jsonType(item) + ", not a field name"}
		}
		if _, declared := n.out.Properties[name]; !declared && !preserve && n.out.AdditionalProperties == nil {
			n.c.drop(n.loc, "required", fmt.Sprintf("%q is required but not declared: it would be pruned, so it is not required", name))
			continue
		}
		n.out.Required = append(n.out.Required, name)
	}
	return nil
}

// array carries items (a schema for every item; position-wise items cannot
// be), the bounds on the number of items, and uniqueItems for scalars as a
// set.
func (n *nodeConversion) array() error {
	o := &n.out
	items := freeForm()
	switch v, ok := n.get("items"); {
	case !ok:
	case v == false:
		zero := int64(0)
		o.MaxItems = &zero
	case isSchema(v):
		converted, err := n.c.convert(v, n.loc.items(n.loc.keyword("items")))
		if err != nil {
			return err
		}
		items = converted
	default:
		n.c.drop(n.loc, "items", "items by position (an array of schemas) cannot be checked: items are kept unchecked")
	}
	if _, ok := n.get("prefixItems"); ok {
		n.c.drop(n.loc, "prefixItems", "items by position cannot be checked: items are kept unchecked")
	}
	o.Items = &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &items}
	for _, k := range []string{"minItems", "maxItems"} {
		if err := n.count(k); err != nil {
			return err
		}
	}
	if v, ok := n.get("uniqueItems"); ok && v == true {
		if isScalar(items) && !items.Nullable {
			set := "set"
			o.XListType = &set
		} else {
			n.c.drop(n.loc, "uniqueItems", "a CRD checks unique items only for lists of strings, numbers or booleans (x-kubernetes-list-type: set): duplicates are not refused")
		}
	}
	return nil
}

func isSchema(v any) bool {
	switch v.(type) {
	case bool, map[string]any:
		return true
	}
	return false
}

func isScalar(s apiextensionsv1.JSONSchemaProps) bool {
	switch s.Type {
	case "string", "integer", "number", "boolean":
		return true
	}
	return false
}

// goFormats are the formats the API server checks (apiextensions-apiserver's
// supported formats, with JSON Schema's spelling date-time).
var goFormats = map[string]map[string]bool{
	"string": set("bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3", "uuid4", "uuid5",
		"isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte", "password", "date", "duration", "datetime", "date-time"),
	"integer": set("int32", "int64"),
	"number":  set("float", "double"),
}

func set(items ...string) map[string]bool {
	m := map[string]bool{}
	for _, i := range items {
		m[i] = true
	}
	return m
}

// str carries the length bounds, a pattern Go can compile, and a format
// the API server checks.
func (n *nodeConversion) str() error {
	for _, k := range []string{"minLength", "maxLength"} {
		if err := n.count(k); err != nil {
			return err
		}
	}
	if v, ok := n.get("pattern"); ok {
		pattern, isString := v.(string)
		if !isString {
			return &Error{Path: n.loc.path, At: n.loc.keyword("pattern"), Reason: "pattern is " + jsonType(v) + ", not a string"}
		}
		if _, err := regexp.Compile(pattern); err != nil {
			n.c.drop(n.loc, "pattern", fmt.Sprintf("the API server's regular expressions (RE2) cannot hold %q (%v): the value is not checked against it", pattern, cause(err)))
		} else {
			n.out.Pattern = pattern
		}
	}
	return n.format()
}

func cause(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "error parsing regexp") {
		return strings.TrimPrefix(msg[:i], "error parsing regexp: ")
	}
	return msg
}

func (n *nodeConversion) format() error {
	v, ok := n.get("format")
	if !ok {
		return nil
	}
	f, isString := v.(string)
	if !isString {
		return &Error{Path: n.loc.path, At: n.loc.keyword("format"), Reason: "format is " + jsonType(v) + ", not a string"}
	}
	if goFormats[n.kind][f] {
		n.out.Format = f
		return nil
	}
	n.c.drop(n.loc, "format", fmt.Sprintf("the API server does not check the format %q of %s values: the value is not checked against it", f, n.kind))
	return nil
}

// numeric carries the bounds (draft 6's numeric exclusiveMinimum becomes a
// minimum with OpenAPI's exclusive flag), multipleOf and the formats of
// numbers.
func (n *nodeConversion) numeric() error {
	o := &n.out
	for _, k := range []string{"minimum", "maximum", "multipleOf"} {
		v, ok := n.get(k)
		if !ok {
			continue
		}
		f, isNumber := number(v)
		if !isNumber {
			return &Error{Path: n.loc.path, At: n.loc.keyword(k), Reason: k + " is " + jsonType(v) + ", not a number"}
		}
		switch k {
		case "minimum":
			o.Minimum = &f
		case "maximum":
			o.Maximum = &f
		default:
			if f <= 0 {
				return &Error{Path: n.loc.path, At: n.loc.keyword(k), Reason: "multipleOf must be greater than 0"}
			}
			o.MultipleOf = &f
		}
	}
	if err := n.exclusive("exclusiveMinimum", &o.Minimum, &o.ExclusiveMinimum, func(a, b float64) bool { return a >= b }); err != nil {
		return err
	}
	if err := n.exclusive("exclusiveMaximum", &o.Maximum, &o.ExclusiveMaximum, func(a, b float64) bool { return a <= b }); err != nil {
		return err
	}
	return n.format()
}

// exclusive carries an exclusive bound: draft 4's boolean as it is, draft
// 6's number as the bound with the flag, unless the inclusive bound is
// already tighter.
func (n *nodeConversion) exclusive(k string, bound **float64, flag *bool, atLeastAsTight func(a, b float64) bool) error {
	v, ok := n.get(k)
	if !ok {
		return nil
	}
	switch t := v.(type) {
	case bool:
		*flag = t && *bound != nil
	default:
		f, isNumber := number(t)
		if !isNumber {
			return &Error{Path: n.loc.path, At: n.loc.keyword(k), Reason: k + " is " + jsonType(v) + ", not a number"}
		}
		if *bound == nil || atLeastAsTight(f, **bound) {
			*bound, *flag = &f, true
		}
	}
	return nil
}

// count carries a bound on a length or a number of items or fields.
func (n *nodeConversion) count(k string) error {
	v, ok := n.get(k)
	if !ok {
		return nil
	}
	f, isNumber := number(v)
	if !isNumber || f < 0 || f != math.Trunc(f) || f > math.MaxInt64/2 {
		return &Error{Path: n.loc.path, At: n.loc.keyword(k), Reason: k + " is not a whole number of at least 0"}
	}
	i := int64(f)
	o := &n.out
	target := map[string]**int64{"minLength": &o.MinLength, "maxLength": &o.MaxLength, "minItems": &o.MinItems, "maxItems": &o.MaxItems,
		"minProperties": &o.MinProperties, "maxProperties": &o.MaxProperties}[k]
	if k == "maxItems" && *target != nil && **target < i {
		return nil // items: false said 0
	}
	*target = &i
	return nil
}
