package jsonvalue

import (
	"math"
	"reflect"
	"testing"
)

// TestNormaliseJSONIsTheRoundTrip checks that the walk of normaliseJSON
// gives what a JSON round trip gives, for plain JSON values and for the Go
// types a renderer may leave in an object.
func TestNormaliseJSONIsTheRoundTrip(t *testing.T) {
	values := []any{
		nil, true, "text", float64(1.5), int64(3), int64(1<<53 + 1), int64(-1 << 62),
		map[string]any{"a": int64(1), "b": []any{int64(2), "x", nil, map[string]any{}}, "c": map[string]any(nil)},
		[]any(nil), []any{}, map[string]any{},
		map[string]any{"typed": []string{"a"}, "n": int32(7), "m": map[string]string{"k": "v"}},
		map[string]any{"bad": "\xff"}, map[string]any{"\xfe": "key"},
		map[string]any{"nan": math.NaN()},
		map[string]any{"q": int(4), "u": uint8(2), "f": float32(0.25)},
	}
	for _, v := range values {
		got, want := Normalise(v), RoundTrip(v)
		if !reflect.DeepEqual(got, want) && !hasNaN(v) {
			t.Errorf("normaliseJSON(%#v) = %#v, the round trip gives %#v", v, got, want)
		}
	}
}

func hasNaN(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	f, ok := m["nan"].(float64)
	return ok && math.IsNaN(f)
}
