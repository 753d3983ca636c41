package external

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

func TestSplitKeepsRenderOrderAndReadsPolicies(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}
	cm.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	role := New(Object{Kind: "PostgresRole", Name: "app", Spec: map[string]any{"login": true},
		Annotations:  map[string]string{"demo/delete-order": "2", "demo/delete-policy": "orphan"},
		Secret:       &SecretSpec{Name: "app-db", Generate: []string{"password"}, Data: map[string]string{"username": "app"}},
		PollInterval: "5s", CredentialsFrom: "admin"})
	db := New(Object{Kind: "PostgresDatabase", Name: "app", Spec: map[string]any{"owner": "app"}})
	deps, rest, err := Split("demo", []client.Object{role, cm, db}, manifests.Defaults{}.WithFallbacks())
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 1 || rest[0] != cm {
		t.Fatalf("objects: %v", rest)
	}
	if len(deps) != 2 || deps[0].Kind != "PostgresRole" || deps[1].Kind != "PostgresDatabase" {
		t.Fatalf("dependents: %+v", deps)
	}
	r := deps[0]
	if r.Policies.DeleteOrder != 2 || r.Policies.Delete != manifests.DeleteOrphan || r.Poll.String() != "5s" ||
		r.CredentialsFrom != "admin" || r.Secret.Name != "app-db" || r.Digest == "" || r.Spec["login"] != true {
		t.Fatalf("role: %+v", r)
	}
}

func TestSplitRefusesWhatItCannotApply(t *testing.T) {
	tests := map[string]struct {
		obj  func() *unstructured.Unstructured
		want string
	}{
		"unknown field": {func() *unstructured.Unstructured {
			u := New(Object{Kind: "Bucket", Name: "b"})
			u.Object["specs"] = map[string]any{}
			return u
		}, `Bucket b: unknown field "specs"`},
		"bad annotation": {func() *unstructured.Unstructured {
			return New(Object{Kind: "Bucket", Name: "b", Annotations: map[string]string{"demo/apply-order": "first"}})
		}, "demo/apply-order"},
		"bad poll interval": {func() *unstructured.Unstructured {
			return New(Object{Kind: "Bucket", Name: "b", PollInterval: "soon"})
		}, "pollInterval soon"},
		"generated and fixed": {func() *unstructured.Unstructured {
			return New(Object{Kind: "Bucket", Name: "b", Secret: &SecretSpec{Name: "s", Generate: []string{"k"}, Data: map[string]string{"k": "v"}}})
		}, `key "k" is both generated and fixed`},
		"wrong version": {func() *unstructured.Unstructured {
			u := New(Object{Kind: "Bucket", Name: "b"})
			u.SetAPIVersion(manifests.ExternalGroup + "/v2")
			return u
		}, "is not served"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := Split("demo", []client.Object{tt.obj()}, manifests.Defaults{}.WithFallbacks())
			var userErr *manifests.UserError
			if !errors.As(err, &userErr) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want a UserError with %q", err, tt.want)
			}
		})
	}
	twice := []client.Object{New(Object{Kind: "Bucket", Name: "b"}), New(Object{Kind: "Bucket", Name: "b"})}
	if _, _, err := Split("demo", twice, manifests.Defaults{}); err == nil || !strings.Contains(err.Error(), "rendered twice") {
		t.Fatalf("duplicate: %v", err)
	}
}

func TestKeyIsStableShortAndSafe(t *testing.T) {
	if got := Key("team", "shop", "PostgresDatabase", "app"); got != "team_shop_app" {
		t.Fatalf("Key = %q", got)
	}
	if got := Key("team-a", "shop", "PostgresDatabase", "app"); !strings.HasPrefix(got, "team_a_shop_app_") || len(got) != len("team_a_shop_app_")+8 {
		t.Fatalf("Key = %q, want team_a_shop_app_ and a hash", got)
	}
	long := Key("a-very-long-namespace-name", "a-very-long-component-name", "PostgresDatabase", "the-database")
	if len(long) > maxKey || long != Key("a-very-long-namespace-name", "a-very-long-component-name", "PostgresDatabase", "the-database") {
		t.Fatalf("long key %q (%d)", long, len(long))
	}
	if Key("ns", "c", "A", "x-y") == Key("ns", "c", "A", "x_y") {
		t.Fatal("names that differ only in '-' and '_' share a key")
	}
}

func TestWantedKeepsGeneratedValues(t *testing.T) {
	spec := &SecretSpec{Name: "s", Generate: []string{"password"}, Data: map[string]string{"username": "app"}}
	first := wanted(spec, nil)
	if len(first["password"]) < 20 || string(first["username"]) != "app" {
		t.Fatalf("first: %d bytes of password, username %q", len(first["password"]), first["username"])
	}
	again := wanted(spec, first)
	if string(again["password"]) != string(first["password"]) {
		t.Fatal("a generated value changed")
	}
}
