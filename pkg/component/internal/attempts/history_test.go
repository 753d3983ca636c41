package attempts

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
)

func TestAddHistoryMergesEqualOutcomesAndKeepsTen(t *testing.T) {
	var s api.Status
	entry := func(generation int64, result, message string) api.HistoryEntry {
		return api.HistoryEntry{Generation: generation, RenderDigest: "sha256:x", Result: result, Message: message,
			Started: metav1.Now(), Finished: metav1.NewTime(time.Now().Add(time.Duration(generation) * time.Second))}
	}
	addHistory(&s, entry(1, api.ResultFailed, "try 1"))
	addHistory(&s, entry(1, api.ResultFailed, "try 2"))
	if len(s.History) != 1 || s.History[0].Message != "try 2" {
		t.Fatalf("a second failed try of one render is not merged: %+v", s.History)
	}
	addHistory(&s, entry(1, api.ResultReady, "ready"))
	for g := int64(2); g <= 12; g++ {
		addHistory(&s, entry(g, api.ResultReady, "ready"))
	}
	if len(s.History) != api.HistoryLimit || s.History[0].Generation != 3 || s.History[api.HistoryLimit-1].Generation != 12 {
		t.Fatalf("history is %v", outcomesOf(s.History))
	}
	addHistory(&s, entry(13, api.ResultFailed, strings.Repeat("x", 5000)))
	if n := len(s.History[api.HistoryLimit-1].Message); n > historyMessageLimit {
		t.Fatalf("a message of %d bytes was kept whole", n)
	}
}

func TestRetryDue(t *testing.T) {
	now := time.Now()
	finished := metav1.NewTime(now.Add(-2 * time.Second))
	failed := &api.Attempt{Result: api.ResultFailed, Failures: 1, Finished: &finished}
	if retryDue(failed, now, &api.Remediation{Retries: 0}, time.Second) {
		t.Fatal("retried with no retries left")
	}
	if !retryDue(failed, now, &api.Remediation{Retries: 1}, time.Second) {
		t.Fatal("not retried once the interval passed")
	}
	if retryDue(failed, now, &api.Remediation{Retries: 1}, time.Minute) {
		t.Fatal("retried before the interval passed")
	}
	if retryDue(failed, now, nil, time.Second) {
		t.Fatal("retried without remediation")
	}
}

func outcomesOf(history []api.HistoryEntry) []string {
	var out []string
	for _, h := range history {
		out = append(out, h.Result)
	}
	return out
}
