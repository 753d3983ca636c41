package manifests_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// FuzzMergeValues merges any two JSON objects: MergeValues must never change
// its inputs nor share memory with them, merging with an empty map is the
// identity, merging the same overlay twice changes nothing more, and every
// overlay value that is not a map merged into a map wins (seeds:
// testdata/fuzz/FuzzMergeValues).
func FuzzMergeValues(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1,"c":[1,2]},"d":"x"}`), []byte(`{"a":{"b":2},"e":null}`))
	f.Fuzz(func(t *testing.T, baseJSON, overlayJSON []byte) {
		base, overlay := decodeMap(baseJSON), decodeMap(overlayJSON)
		if base == nil || overlay == nil {
			t.Skip("not two JSON objects")
		}
		baseCopy, overlayCopy := decodeMap(baseJSON), decodeMap(overlayJSON)

		merged := manifests.MergeValues(base, overlay)
		if !reflect.DeepEqual(base, baseCopy) || !reflect.DeepEqual(overlay, overlayCopy) {
			t.Fatalf("inputs changed:\n%v → %v\n%v → %v", baseCopy, base, overlayCopy, overlay)
		}
		for k, v := range overlay {
			if _, isMap := v.(map[string]any); isMap {
				if _, baseIsMap := base[k].(map[string]any); baseIsMap {
					continue
				}
			}
			if !reflect.DeepEqual(merged[k], v) {
				t.Fatalf("overlay %s=%v lost: merged has %v", k, v, merged[k])
			}
		}
		if again := manifests.MergeValues(merged, overlay); !reflect.DeepEqual(again, merged) {
			t.Fatalf("merging the overlay twice differs:\n%v\n%v", merged, again)
		}
		if got := manifests.MergeValues(base, map[string]any{}); !reflect.DeepEqual(got, base) {
			t.Fatalf("merging an empty overlay changed %v into %v", base, got)
		}
		if got := manifests.MergeValues(map[string]any{}, base); !reflect.DeepEqual(got, base) {
			t.Fatalf("merging onto an empty base changed %v into %v", base, got)
		}
		scribble(merged)
		if !reflect.DeepEqual(base, baseCopy) || !reflect.DeepEqual(overlay, overlayCopy) {
			t.Fatalf("the result shares memory with its inputs")
		}
	})
}

// decodeMap decodes a JSON object, or returns nil.
func decodeMap(data []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// scribble overwrites every value inside v, in place.
func scribble(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, inner := range t {
			scribble(inner)
			t[k] = "scribbled"
		}
		t["scribbled"] = true
	case []any:
		for i, inner := range t {
			scribble(inner)
			t[i] = "scribbled"
		}
	}
}
