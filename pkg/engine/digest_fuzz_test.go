package engine_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// FuzzDigestStable checks that the digest of an object does not depend on
// how its YAML was written: the same object with its keys in another order
// (and as JSON instead of YAML) has the same digest (seeds:
// testdata/fuzz/FuzzDigestStable).
func FuzzDigestStable(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {x: y, a: b}\ndata:\n  z: \"1\"\n  a: \"2\"\n"), uint64(1))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		objects, err := manifests.DecodeObjects("fuzz.yaml", data)
		if err != nil {
			t.Skip("not decodable")
		}
		for _, obj := range objects {
			want, err := engine.DigestOf("fuzz.wavekit.dev", 1, obj.DeepCopy())
			if err != nil {
				continue // not a valid object (no name, no kind, bad annotation)
			}
			var shuffled bytes.Buffer
			writeShuffled(&shuffled, obj.Object, rand.New(rand.NewPCG(seed, seed>>1)))
			again, err := manifests.DecodeObjects("shuffled.json", shuffled.Bytes())
			if err != nil || len(again) != 1 {
				t.Fatalf("reordered %s does not decode to one object: %v", shuffled.Bytes(), err)
			}
			got, err := engine.DigestOf("fuzz.wavekit.dev", 1, again[0])
			if err != nil || got != want {
				t.Fatalf("digest of %q changed with key order (%s): %s → %s, %v", data, shuffled.Bytes(), want, got, err)
			}
			if other, _ := engine.DigestOf("fuzz.wavekit.dev", 2, obj.DeepCopy()); other != want && !followsComponent(obj.GetAnnotations()) {
				t.Fatalf("digest depends on the generation without on-object-or-component-change")
			}
		}
	})
}

// writeShuffled writes v as JSON with the keys of every map in an order
// drawn from r.
func writeShuffled(buf *bytes.Buffer, v any, r *rand.Rand) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			key, _ := json.Marshal(k)
			buf.Write(key)
			buf.WriteByte(':')
			writeShuffled(buf, t[k], r)
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, inner := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeShuffled(buf, inner, r)
		}
		buf.WriteByte(']')
	default:
		scalar, _ := json.Marshal(t)
		buf.Write(scalar)
	}
}

// followsComponent tells whether the object's digest includes the component generation.
func followsComponent(annotations map[string]string) bool {
	p, err := manifests.ParsePolicies("fuzz.wavekit.dev", "fuzz", annotations, manifests.Defaults{})
	return err == nil && p.Reconcile == manifests.ReconcileOnObjectOrComponentChange
}
