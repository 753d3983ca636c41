package manifests_test
import ("testing";"github.com/wavekit-dev/wavekit/pkg/manifests")
func TestTmpDecode(t *testing.T){
 for _, s := range []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nitems: []\n", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nitems: [{apiVersion: v1, kind: Secret, metadata: {name: s}}]\n", "apiVersion: v1\nkind: List\nitems: [{metadata: {name: s}}]\n"} {
 objs, err := manifests.DecodeObjects("x", []byte(s)); t.Logf("%d %v", len(objs), err); for _, o := range objs { t.Logf("%v", o.Object) } }
}
