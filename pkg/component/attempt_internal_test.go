package component

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAddHistoryMergesEqualOutcomesAndKeepsTen(t *testing.T) {
	var s Status
	entry := func(generation int64, result, message string) HistoryEntry {
		return HistoryEntry{Generation: generation, RenderDigest: "sha256:x", Result: result, Message: message,
			Started: metav1.Now(), Finished: metav1.NewTime(time.Now().Add(time.Duration(generation) * time.Second))}
	}
	addHistory(&s, entry(1, ResultFailed, "try 1"))
	addHistory(&s, entry(1, ResultFailed, "try 2"))
	if len(s.History) != 1 || s.History[0].Message != "try 2" {
		t.Fatalf("a second failed try of one render is not merged: %+v", s.History)
	}
	addHistory(&s, entry(1, ResultReady, "ready"))
	for g := int64(2); g <= 12; g++ {
		addHistory(&s, entry(g, ResultReady, "ready"))
	}
	if len(s.History) != HistoryLimit || s.History[0].Generation != 3 || s.History[HistoryLimit-1].Generation != 12 {
		t.Fatalf("history is %v", outcomesOf(s.History))
	}
	addHistory(&s, entry(13, ResultFailed, strings.Repeat("x", 5000)))
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
	if retryDue(failed, now, &Remediation{Retries: 0}, time.Second) {
		t.Fatal("retried with no retries left")
	}
	if !retryDue(failed, now, &Remediation{Retries: 1}, time.Second) {
		t.Fatal("not retried once the interval passed")
	}
	if retryDue(failed, now, &Remediation{Retries: 1}, time.Minute) {
		t.Fatal("retried before the interval passed")
	}
	if retryDue(failed, now, nil, time.Second) {
		t.Fatal("retried without remediation")
	}
}
