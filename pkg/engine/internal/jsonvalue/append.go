package jsonvalue

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"
)

// Append appends the JSON encoding of v to dst, byte for byte what
// encoding/json's Marshal writes (object keys sorted, <, > and & escaped),
// so that digests made from it stay what they were. Plain JSON values (maps
// of string keys, lists, strings of printable ASCII, whole float64 and
// int64 numbers, booleans and null: nearly all of a rendered object) are
// written by a walk that allocates nothing but its sort of keys; any other
// value or string is written by encoding/json itself.
func Append(dst []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, t), nil
	case string:
		return appendString(dst, t)
	case int64:
		return strconv.AppendInt(dst, t, 10), nil
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1e21 {
			// encoding/json writes such a number in 'f' format.
			return strconv.AppendFloat(dst, t, 'f', -1, 64), nil
		}
	case map[string]any:
		if t != nil {
			return appendObject(dst, t)
		}
		return append(dst, "null"...), nil
	case []any:
		if t != nil {
			return appendList(dst, t)
		}
		return append(dst, "null"...), nil
	}
	return appendMarshalled(dst, v)
}

func appendObject(dst []byte, m map[string]any) ([]byte, error) {
	keys := sortedKeys(m)
	defer keyLists.Put(keys)
	dst = append(dst, '{')
	var err error
	for i, k := range *keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendString(dst, k); err != nil {
			return dst, err
		}
		dst = append(dst, ':')
		if dst, err = Append(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func appendList(dst []byte, l []any) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i, e := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = Append(dst, e); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendString writes s as it is, quoted, when encoding/json would: s is
// printable ASCII without a quote, backslash or a character it escapes for
// HTML.
func appendString(dst []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b >= 0x7f || b == '"' || b == '\\' || b == '<' || b == '>' || b == '&' {
			return appendMarshalled(dst, s)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), nil
}

func appendMarshalled(dst []byte, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, data...), nil
}

// keyLists holds the slices that appendObject sorts an object's keys in.
var keyLists = sync.Pool{New: func() any { return new([]string) }}

func sortedKeys(m map[string]any) *[]string {
	keys := keyLists.Get().(*[]string)
	*keys = (*keys)[:0]
	for k := range m {
		*keys = append(*keys, k)
	}
	slices.Sort(*keys)
	return keys
}
