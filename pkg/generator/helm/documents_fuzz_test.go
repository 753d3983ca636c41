package helm_test

import (
	"reflect"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
)

// FuzzDecodeOnce checks that the generator's one-parse decoding of rendered
// documents gives what Helm's SortManifests and DecodeObjects give, for any
// file content it takes (go test -run xxx -fuzz FuzzDecodeOnce).
func FuzzDecodeOnce(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  a: \"1\"\n",
		"kind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install,post-upgrade\n    helm.sh/hook-weight: \"-3\"\n    helm.sh/hook-delete-policy: hook-succeeded\n---\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}",
		"apiVersion: v1\nkind: List\nitems:\n- kind: A\n  metadata: {name: x}\n- kind: B\n---\n---\nkind: C\nx: 1.0\ny: 1e3\nz: on\n",
		"kind: X\nmetadata:\n  name: a\n  annotations:\n    helm.sh/resource-policy: keep\nv: |\n  tail",
		"kind: Y\nbase: &b {a: 1}\nm: {<<: *b, c: !!binary aGk=}\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		files := map[string]string{"c/templates/a.yaml": content, "c/templates/b.yaml": "kind: ConfigMap\nmetadata:\n  name: b\n"}
		for _, install := range []bool{true, false} {
			fast, viaHelm, took := helm.CollectFilesBothWays(files, "fuzz.test", install)
			if !took {
				continue // the same code ran both times
			}
			if viaHelm.Err != nil || fast.Err != nil {
				if viaHelm.Err == nil || fast.Err == nil || fast.Err.Error() != viaHelm.Err.Error() {
					t.Fatalf("errors differ for %q: %v / %v", content, fast.Err, viaHelm.Err)
				}
				continue
			}
			if !reflect.DeepEqual(contents(fast.Objects), contents(viaHelm.Objects)) {
				t.Fatalf("objects differ for %q:\n%#v\n%#v", content, contents(fast.Objects), contents(viaHelm.Objects))
			}
		}
	})
}
