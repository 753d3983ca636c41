package jsonvalue

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// TestAppendIsMarshal checks that Append writes what encoding/json's
// Marshal writes: the digests of applied objects are made from it, and an
// object whose bytes changed would be taken for changed.
func TestAppendIsMarshal(t *testing.T) {
	values := []any{
		nil, true, false, "", "plain text", "quote \" backslash \\ tab \t newline \n",
		"<html> & friends", "\u2028\u2029", "snowman ☃", "bad \xff utf-8", "\x00\x1f\x7f",
		int64(0), int64(-42), int64(math.MaxInt64), int64(math.MinInt64),
		float64(0), math.Copysign(0, -1), float64(1), float64(-3), float64(1.5), float64(1e20), float64(1e21),
		float64(123456789012345680000), float64(1e-7), float64(0.000001), float64(3.14159), float64(1 << 53),
		map[string]any{"b": int64(1), "a": []any{int64(2), "x", nil, map[string]any{}}, "c": map[string]any(nil), "<k>": "v"},
		[]any(nil), []any{}, map[string]any{}, map[string]any{"": ""},
		map[string]any{"typed": []string{"a"}, "n": int32(7), "m": map[string]string{"k": "v"}, "i": 3, "f": float32(0.1)},
		map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "labels": map[string]any{"z": "1", "a": "2"}}},
	}
	for _, v := range values {
		assertAppendIsMarshal(t, v)
	}
}

// TestAppendFailsAsMarshal checks that a value Marshal refuses is refused.
func TestAppendFailsAsMarshal(t *testing.T) {
	for _, v := range []any{math.NaN(), map[string]any{"x": []any{math.Inf(1)}}, map[string]any{"c": make(chan int)}} {
		if _, err := Append(nil, v); err == nil {
			t.Errorf("Append(%#v) wrote it; Marshal refuses it", v)
		}
	}
}

// FuzzAppendIsMarshal decodes JSON documents (numbers as float64, as a
// kept render holds them, and as int64 and float64, as an informer does)
// and checks that Append and Marshal write the same bytes.
func FuzzAppendIsMarshal(f *testing.F) {
	for _, seed := range []string{`{"a":1,"b":[true,null,"x<y"],"c":{"d":1.5e-9}}`, `"\u2028"`, `[1e21,-0,123.456]`, `{"z":"\ud800"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			t.Skip("not JSON")
		}
		assertAppendIsMarshal(t, v)
		assertAppendIsMarshal(t, withInts(v))
	})
}

func assertAppendIsMarshal(t *testing.T, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("Marshal(%#v): %v", v, err)
	}
	got, err := Append([]byte("prefix"), v)
	if err != nil || !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Errorf("Append(%#v) = %s, %v; Marshal writes %s", v, got, err, want)
	}
}

// withInts is v with each whole number that fits an int64 made one.
func withInts(v any) any {
	switch t := v.(type) {
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<62 {
			return int64(t)
		}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = withInts(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = withInts(e)
		}
		return out
	}
	return v
}
