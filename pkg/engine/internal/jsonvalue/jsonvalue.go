package jsonvalue

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// AbsentOrZero stands, in a stored form, for a rendered zero value (false,
// 0, "", an empty list) that the API server does not store: the live field
// matches it when it is absent or zero.
type AbsentOrZero struct{}

// Contains reports whether every field of want is in have with the same
// value. Lists must have the same length and match element by element; a
// field that want has as absentOrZero may be absent or zero in have.
// It is differences without paths and ignore rules, and allocates nothing:
// the common case, an object that did not drift.
func Contains(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return len(w) == 0 && have == nil
		}
		for k, wv := range w {
			hv, found := h[k]
			if !found && IsEmpty(wv) {
				continue
			}
			if !found || !Contains(hv, wv) {
				return false
			}
		}
		return true
	case AbsentOrZero:
		return IsZeroValue(have)
	case []any:
		h, ok := have.([]any)
		if !ok {
			return len(w) == 0 && have == nil
		}
		if len(h) != len(w) {
			return false
		}
		for i := range w {
			if !Contains(h[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(have, want)
	}
}

// IsEmpty is true for values the API server drops on write: null, "{}",
// "[]", and a rendered zero value it does not store (absentOrZero).
func IsEmpty(v any) bool {
	switch t := v.(type) {
	case nil, AbsentOrZero:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// IsZeroValue is true for what the API server may leave out when it stores
// an object: null, false, 0, "", an empty list or map.
func IsZeroValue(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case bool:
		return !t
	case float64:
		return t == 0
	case int64:
		return t == 0
	case string:
		return t == ""
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// Lookup is the value at p of obj, nil when there is none.
func Lookup(obj map[string]any, p manifests.Pointer) any {
	var v any = obj
	for _, token := range p {
		v = child(v, token)
	}
	return v
}

// child is the value under token of v: a map key or a list index.
func child(v any, token string) any {
	switch t := v.(type) {
	case map[string]any:
		return t[token]
	case []any:
		i, err := strconv.Atoi(token)
		if err != nil || i < 0 || i >= len(t) {
			return nil
		}
		return t[i]
	}
	return nil
}

// Normalise makes numbers comparable: it returns v as a JSON round trip
// would, int64 and float64 values all float64. Plain JSON values (what the
// API server's answers and the informer cache hold) are copied by a walk,
// which gives what the round trip gives at a fraction of its cost; any
// other value (a Go type a renderer left in an object, a string that is not
// UTF-8) takes the round trip itself.
func Normalise(v any) any {
	if out, ok := plainJSON(v); ok {
		return out
	}
	return RoundTrip(v)
}

// plainJSON copies v with every int64 made a float64; ok is false when v
// holds anything a JSON round trip would change otherwise.
func plainJSON(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool:
		return v, true
	case string:
		return v, utf8.ValidString(t)
	case float64:
		return v, !math.IsNaN(t) && !math.IsInf(t, 0)
	case int64:
		return float64(t), true
	case map[string]any:
		if t == nil {
			return nil, true
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			n, ok := plainJSON(e)
			if !ok || !utf8.ValidString(k) {
				return nil, false
			}
			out[k] = n
		}
		return out, true
	case []any:
		if t == nil {
			return nil, true
		}
		out := make([]any, len(t))
		for i, e := range t {
			n, ok := plainJSON(e)
			if !ok {
				return nil, false
			}
			out[i] = n
		}
		return out, true
	}
	return nil, false
}

// RoundTrip is v encoded and decoded again, or v when it cannot be
// encoded.
func RoundTrip(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return v
	}
	return out
}

// SortedKeys returns the keys of m in order.
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// IsMap tells whether v is a JSON object.
func IsMap(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// Marshal encodes a patch, saying so in its error.
func Marshal(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding patch: %w", err)
	}
	return data, nil
}

// Label returns the label key of obj (an Unstructured's content), "" when
// it has none or it is not a string, as GetLabels reads it, but without
// copying the labels into a new map, which a pass would do for every
// object it reads.
func Label(obj map[string]any, key string) string { return metadataString(obj, "labels", key) }

// Annotation returns the annotation key of obj, as Label does a label.
func Annotation(obj map[string]any, key string) string {
	return metadataString(obj, "annotations", key)
}

func metadataString(obj map[string]any, field, key string) string {
	metadata, _ := obj["metadata"].(map[string]any)
	values, _ := metadata[field].(map[string]any)
	value, _ := values[key].(string)
	return value
}
