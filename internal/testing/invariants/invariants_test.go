package invariants_test

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/internal/testing/history"
	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

const op = "soak.wavekit.dev"

var owner = manifests.OwnerID("wavekit.dev", "Component", "ns", "app")

// builder makes a history of one cluster, one version per event.
type builder struct {
	rv     uint64
	events []history.Event
}

func (b *builder) add(t history.Type, u *unstructured.Unstructured) *builder {
	b.rv++
	b.events = append(b.events, history.Event{Cluster: "main", Kind: u.GetKind(), Type: t, Object: u.DeepCopy(), RV: b.rv,
		At: time.Unix(int64(b.rv), 0)})
	return b
}

func object(apiVersion, kind, name string, wave string, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	for k, v := range fields {
		u.Object[k] = v
	}
	u.SetNamespace("ns")
	u.SetName(name)
	u.SetUID(types.UID(name))
	u.SetLabels(map[string]string{op + "/owner-id": owner})
	if wave != "" {
		u.SetAnnotations(map[string]string{op + "/apply-order": wave})
	}
	return u
}

func component(inventory ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "wavekit.dev/v1alpha1", "kind": "Component"}}
	u.SetNamespace("ns")
	u.SetName("app")
	var items []any
	for _, name := range inventory {
		items = append(items, map[string]any{"version": "v1", "kind": "ConfigMap", "namespace": "ns", "name": name})
	}
	u.Object["status"] = map[string]any{"inventory": items}
	return u
}

func configMap(name, wave string) *unstructured.Unstructured {
	return object("v1", "ConfigMap", name, wave, map[string]any{"data": map[string]any{"a": "b"}})
}

func deployment(name, wave string, ready bool) *unstructured.Unstructured {
	status := map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1),
		"readyReplicas": int64(0), "availableReplicas": int64(0)}
	if ready {
		status["readyReplicas"], status["availableReplicas"] = int64(1), int64(1)
		status["conditions"] = []any{map[string]any{"type": "Available", "status": "True"}}
	}
	u := object("apps/v1", "Deployment", name, wave, map[string]any{"spec": map[string]any{"replicas": int64(1)}, "status": status})
	u.SetGeneration(1)
	return u
}

func job(name, wave string, uid string, complete bool) *unstructured.Unstructured {
	u := object("batch/v1", "Job", name, wave, map[string]any{"spec": map[string]any{"template": map[string]any{}}})
	u.SetUID(types.UID(uid))
	a := u.GetAnnotations()
	a[op+"/reconcile-policy"] = "on-object-or-component-change"
	a[op+"/digest"] = uid
	u.SetAnnotations(a)
	if complete {
		u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Complete", "status": "True"}}}
	}
	return u
}

func facts() invariants.Facts {
	return invariants.Facts{Operator: op, ComponentCluster: "main"}
}

func expect(t *testing.T, got []invariants.Violation, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d violations, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if !strings.Contains(got[i].String(), w) {
			t.Errorf("violation %d: %s, want it to say %q", i, got[i], w)
		}
	}
}

func TestWriteAhead(t *testing.T) {
	good := (&builder{}).add(history.Added, component("a")).add(history.Added, configMap("a", ""))
	expect(t, invariants.WriteAhead(good.events, facts()))
	bad := (&builder{}).add(history.Added, component()).add(history.Added, configMap("a", "")).add(history.Modified, component("a"))
	expect(t, invariants.WriteAhead(bad.events, facts()), "created at version 2 before Component ns/app listed it")
}

func TestWaves(t *testing.T) {
	good := (&builder{}).add(history.Added, deployment("web", "0", false)).add(history.Modified, deployment("web", "0", true)).
		add(history.Added, configMap("later", "1"))
	expect(t, invariants.Waves(good.events, facts()))
	bad := (&builder{}).add(history.Added, deployment("web", "0", false)).add(history.Added, configMap("later", "1"))
	expect(t, invariants.Waves(bad.events, facts()), "main/Deployment/ns/web of wave 0 was not ready")
	f := facts()
	f.Gaps = []history.Gap{{Cluster: "main", Kind: "Deployment", From: 1, To: 2}}
	expect(t, invariants.Waves(bad.events, f))
}

func TestHooks(t *testing.T) {
	good := (&builder{}).add(history.Added, job("a", "-10000", "a1", false)).add(history.Modified, job("a", "-10000", "a1", true)).
		add(history.Added, job("b", "-9999", "b1", false)).add(history.Modified, job("b", "-9999", "b1", true)).
		add(history.Deleted, job("a", "-10000", "a1", true)).add(history.Added, job("a", "-10000", "a2", false)).
		add(history.Modified, job("a", "-10000", "a2", true)).add(history.Deleted, job("b", "-9999", "b1", true)).
		add(history.Added, job("b", "-9999", "b2", false))
	expect(t, invariants.Hooks(good.events, facts()))

	// The previous run of a is Complete, this one runs: b must wait.
	early := (&builder{}).add(history.Added, job("a", "-10000", "a1", true)).add(history.Added, job("b", "-9999", "b1", true)).
		add(history.Deleted, job("a", "-10000", "a1", true)).add(history.Added, job("a", "-10000", "a2", false)).
		add(history.Deleted, job("b", "-9999", "b1", true)).add(history.Added, job("b", "-9999", "b2", false))
	expect(t, invariants.Hooks(early.events, facts()), "before Job a of wave -10000 (created at version 4) succeeded")

	skipped := (&builder{}).add(history.Added, job("a", "-10000", "a1", true)).add(history.Added, job("b", "-9999", "b1", true)).
		add(history.Deleted, job("b", "-9999", "b1", true)).add(history.Added, job("b", "-9999", "b2", false))
	expect(t, invariants.Hooks(skipped.events, facts()), "without Job a of wave -10000 running again")

	twice := (&builder{}).add(history.Added, job("a", "0", "a1", true)).add(history.Deleted, job("a", "0", "a1", true)).
		add(history.Added, job("a", "0", "a1", false))
	expect(t, invariants.Hooks(twice.events, facts()), "created again (version 3) from the render it ran at already")
}

func TestOthersAndIdle(t *testing.T) {
	foreign := configMap("theirs", "")
	foreign.SetLabels(nil)
	b := (&builder{}).add(history.Added, foreign)
	changed := foreign.DeepCopy()
	changed.Object["data"] = map[string]any{"a": "c"}
	b.add(history.Modified, changed)
	f := facts()
	f.Foreign = map[string]bool{"main/ConfigMap/ns/theirs": true}
	expect(t, invariants.Others(b.events, f), "MODIFIED at version 2 by someone other than its owner")
	f.Own = map[string]bool{invariants.OwnKey("main/ConfigMap/ns/theirs", 2): true}
	expect(t, invariants.Others(b.events, f))

	idle := (&builder{}).add(history.Added, configMap("a", "")).add(history.Modified, configMap("a", ""))
	changedOwned := configMap("a", "")
	changedOwned.Object["data"] = map[string]any{"a": "c"}
	idle.add(history.Modified, changedOwned)
	expect(t, invariants.Idle(idle.events, facts(), time.Unix(2, 0), time.Unix(10, 0)), "MODIFIED at version 3")
}

func TestSecrets(t *testing.T) {
	words := invariants.SecretWords(map[string][]byte{"password": []byte("s3cr3t-value-42"), "short": []byte("abc"),
		"kubeconfig": []byte("users:\n- user:\n    token: abcdefghijklmnopqrstuvwxyz\n")})
	if len(words) != 3 { // the password, the token, the kubeconfig whole
		t.Fatalf("words %q", words)
	}
	got := invariants.Secrets(words, map[string]string{"log": "line 1\nconnecting with s3cr3t-value-42 now\n", "events": "nothing"})
	expect(t, got, "log: holds a Secret's value (s3*************) in: connecting with <secret> now")
}

// TestWriteAheadGapsAndExternals: a listing the recorder may have missed
// (a gap after the last state it saw) judges nothing; a dependent's own
// Secret is tracked by status.externals.
func TestWriteAheadGapsAndExternals(t *testing.T) {
	missed := (&builder{}).add(history.Added, component()).add(history.Added, configMap("a", ""))
	f := facts()
	f.Gaps = []history.Gap{{Cluster: "main", Kind: "Component", From: 1, To: 5}}
	expect(t, invariants.WriteAhead(missed.events, f))

	c := component()
	c.Object["status"] = map[string]any{"externals": []any{map[string]any{"kind": "PostgresRole", "name": "app", "secretName": "app-db"}}}
	secret := object("v1", "Secret", "app-db", "", nil)
	tracked := (&builder{}).add(history.Added, c).add(history.Added, secret)
	expect(t, invariants.WriteAhead(tracked.events, facts()))
}
