package postgres

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// noLimit is PostgreSQL's connection limit for "no limit".
const noLimit = -1

// fields reads a spec: it refuses keys other than known ones, so that a
// mistyped key is an error rather than ignored.
type fields struct {
	spec map[string]any
}

func newFields(spec map[string]any, known ...string) (fields, error) {
	var unknown []string
	for key := range spec {
		if !slices.Contains(known, key) {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fields{}, fmt.Errorf("unknown spec fields %s (known: %s)", strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	return fields{spec: spec}, nil
}

func (f fields) has(key string) bool {
	_, ok := f.spec[key]
	return ok
}

// string returns the string at key, or def when it is absent.
func (f fields) string(key, def string) (string, error) {
	v, ok := f.spec[key]
	if !ok {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("spec.%s is %T, not a string", key, v)
	}
	return s, nil
}

// bool returns the boolean at key, or def when it is absent.
func (f fields) bool(key string, def bool) (bool, error) {
	v, ok := f.spec[key]
	if !ok {
		return def, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("spec.%s is %T, not a boolean", key, v)
	}
	return b, nil
}

// int returns the whole number at key (any Go number a JSON or YAML
// decoder makes), or def when it is absent.
func (f fields) int(key string, def int) (int, error) {
	v, ok := f.spec[key]
	if !ok {
		return def, nil
	}
	switch n := v.(type) {
	case int:
		return n, nil
	case int32:
		return int(n), nil
	case int64:
		return int(n), nil
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < math.MaxInt32 {
			return int(n), nil
		}
	}
	return 0, fmt.Errorf("spec.%s is %v, not a whole number", key, v)
}

// nameOf returns spec.name, else the request's key: the resource's name
// in PostgreSQL (at most 63 bytes).
func nameOf(f fields, key string) (string, error) {
	name, err := f.string("name", key)
	if err != nil {
		return "", err
	}
	if name == "" || len(name) > 63 {
		return "", fmt.Errorf("the name %q is empty or longer than PostgreSQL's 63 bytes", name)
	}
	return name, nil
}
