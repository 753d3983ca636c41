package component

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func configMap(name, value string) client.Object {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "ns"},
		"data":     map[string]any{"value": value},
	}}
}

func TestRenderDigestAndRoundTrip(t *testing.T) {
	one, err := encodeRender([]client.Object{configMap("a", "1"), configMap("b", "2")})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := encodeRender([]client.Object{configMap("a", "1"), configMap("b", "2")})
	changed, _ := encodeRender([]client.Object{configMap("a", "1"), configMap("b", "3")})
	if one.digest != again.digest || !strings.HasPrefix(one.digest, "sha256:") {
		t.Fatalf("the same objects have digests %s and %s", one.digest, again.digest)
	}
	reordered, _ := encodeRender([]client.Object{configMap("b", "2"), configMap("a", "1")})
	if reordered.digest != one.digest {
		t.Fatal("the same objects in another order have another digest")
	}
	if one.digest == changed.digest {
		t.Fatal("a changed value keeps the digest")
	}
	objects, err := one.objects()
	if err != nil {
		t.Fatal(err)
	}
	back, _ := encodeRender(objects)
	if back.digest != one.digest {
		t.Fatalf("decoded objects have digest %s, want %s", back.digest, one.digest)
	}
	kept, err := reordered.objects()
	if err != nil || kept[0].GetName() != "b" || kept[1].GetName() != "a" {
		t.Fatalf("the kept render does not keep the generator's order: %v, %v", kept, err)
	}
	for _, r := range []keptRender{one, reordered} {
		if got, err := digestOf(r.data); err != nil || got != one.digest {
			t.Fatalf("digestOf(%s) = %s, %v; want %s", r.data, got, err, one.digest)
		}
	}
}

func TestRenderSecretName(t *testing.T) {
	if got := renderSecretName("Component", "web"); got != "web.component.render" {
		t.Fatalf("got %q", got)
	}
	long := strings.Repeat("a", 253)
	got := renderSecretName("Component", long)
	if len(got) > 253 || got == renderSecretName("Component", long[:252]) {
		t.Fatalf("a long name gives %q (%d bytes)", got, len(got))
	}
}

func TestAddHistoryMergesEqualOutcomesAndKeepsTen(t *testing.T) {
	var s Status
	entry := func(generation int64, result, message string) HistoryEntry {
		return HistoryEntry{Generation: generation, RenderDigest: "sha256:x", Result: result, Message: message,
			Started: metav1.Now(), Finished: metav1.NewTime(time.Now().Add(time.Duration(generation) * time.Second))}
	}
	s.addHistory(entry(1, ResultFailed, "try 1"))
	s.addHistory(entry(1, ResultFailed, "try 2"))
	if len(s.History) != 1 || s.History[0].Message != "try 2" {
		t.Fatalf("a second failed try of one render is not merged: %+v", s.History)
	}
	s.addHistory(entry(1, ResultReady, "ready"))
	for g := int64(2); g <= 12; g++ {
		s.addHistory(entry(g, ResultReady, "ready"))
	}
	if len(s.History) != HistoryLimit || s.History[0].Generation != 3 || s.History[HistoryLimit-1].Generation != 12 {
		t.Fatalf("history is %v", outcomesOf(s.History))
	}
	s.addHistory(entry(13, ResultFailed, strings.Repeat("x", 5000)))
	if n := len(s.History[HistoryLimit-1].Message); n > historyMessageLimit {
		t.Fatalf("a message of %d bytes was kept whole", n)
	}
}

func outcomesOf(history []HistoryEntry) []string {
	var out []string
	for _, h := range history {
		out = append(out, h.Result)
	}
	return out
}

func TestRetryDue(t *testing.T) {
	now := time.Now()
	finished := metav1.NewTime(now.Add(-2 * time.Second))
	failed := &Attempt{Result: ResultFailed, Failures: 1, Finished: &finished}
	if failed.retryDue(now, &Remediation{Retries: 0}, time.Second) {
		t.Fatal("retried with no retries left")
	}
	if !failed.retryDue(now, &Remediation{Retries: 1}, time.Second) {
		t.Fatal("not retried once the interval passed")
	}
	if failed.retryDue(now, &Remediation{Retries: 1}, time.Minute) {
		t.Fatal("retried before the interval passed")
	}
	if failed.retryDue(now, nil, time.Second) {
		t.Fatal("retried without remediation")
	}
}
