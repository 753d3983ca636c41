package manifests_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// FuzzDecodeObjects feeds arbitrary generator output to DecodeObjects: it
// must never panic, must decode the same input the same way twice, and every
// object it returns must survive a round trip through JSON unchanged (seeds:
// testdata/fuzz/FuzzDecodeObjects; go test -run '^$' -fuzz FuzzDecodeObjects).
func FuzzDecodeObjects(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  a: \"1\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objects, err := manifests.DecodeObjects("fuzz.yaml", data)
		again, errAgain := manifests.DecodeObjects("fuzz.yaml", data)
		if (err == nil) != (errAgain == nil) || !reflect.DeepEqual(objects, again) {
			t.Fatalf("decoding %q twice differs: %v / %v", data, err, errAgain)
		}
		if err != nil {
			if objects != nil {
				t.Fatalf("objects returned with error %v", err)
			}
			return
		}
		for i, obj := range objects {
			if obj == nil || obj.Object == nil {
				t.Fatalf("object %d of %q is empty", i, data)
			}
			encoded, err := json.Marshal(obj.Object)
			if err != nil {
				t.Fatalf("object %d of %q does not encode: %v", i, data, err)
			}
			back, err := manifests.DecodeObjects("again.json", encoded)
			if err != nil {
				t.Fatalf("object %d of %q does not decode again from %s: %v", i, data, encoded, err)
			}
			if len(back) != 1 || !reflect.DeepEqual(back[0].Object, obj.Object) {
				t.Fatalf("object %d of %q changed in a round trip:\n%#v\n%#v", i, data, obj.Object, back)
			}
		}
	})
}
