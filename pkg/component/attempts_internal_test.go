package component

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
)

// The attempts' decisions, from a status alone: no cluster, no clock.

func TestAttemptsBeginKeepsOrRestartsAnAttempt(t *testing.T) {
	start := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := attempts{retry: time.Minute, remediation: &Remediation{Retries: 1}, now: start}
	var s Status
	first := a.begin(&s, 1, "sha256:a", "")
	if s.Attempt != first || first.Started != start || first.Result != "" {
		t.Fatalf("a new render starts an attempt now, got %+v", first)
	}
	if again := a.begin(&s, 1, "sha256:a", ""); again != first {
		t.Fatal("the same render is the attempt under way")
	}
	if other := a.begin(&s, 1, "sha256:a", "request"); other == first || other.ReconcileRequest != "request" {
		t.Fatal("a new reconcile request starts a new attempt")
	}
	failed := s.Attempt
	failed.Result, failed.Failures, failed.Finished = ResultFailed, 1, &start
	a.now = metav1.NewTime(start.Add(30 * time.Second))
	if a.begin(&s, 1, "sha256:a", "request"); failed.Result != ResultFailed {
		t.Fatal("a failed try is tried again before its retry interval")
	}
	a.now = metav1.NewTime(start.Add(time.Minute))
	if a.begin(&s, 1, "sha256:a", "request"); failed.Result != "" || failed.Started != a.now || failed.Finished != nil {
		t.Fatalf("a failed try whose retry is due starts again, got %+v", failed)
	}
}

func TestAttemptsSettleRetriesThenRollsBack(t *testing.T) {
	start := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := attempts{retry: time.Minute, remediation: &Remediation{Retries: 1, Strategy: RemediateRollback}, now: start}
	s := Status{LastGoodRender: &StoredRender{Generation: 1, RenderDigest: "sha256:good"}}
	a.begin(&s, 2, "sha256:bad", "")
	failed := outcome.Outcome{Reason: ReasonError, Message: "job failed", FailedAttempt: true}

	out := a.settle(&s, nil, failed)
	if s.Attempt.Failures != 1 || s.Attempt.Result != ResultFailed || out.Requeue != time.Minute || out.Stalled {
		t.Fatalf("the first failure is retried after the retry interval, got %+v, %+v", s.Attempt, out)
	}
	if !strings.Contains(out.Message, "try 1 of 2 failed") || len(s.History) != 1 {
		t.Fatalf("message %q, history %d", out.Message, len(s.History))
	}
	if a.settle(&s, nil, failed); s.Attempt.Failures != 1 {
		t.Fatal("a failure is counted once per try")
	}
	a.now = metav1.NewTime(start.Add(time.Minute))
	a.begin(&s, 2, "sha256:bad", "")
	out = a.settle(&s, nil, failed)
	if s.Attempt.Result != ResultRolledBack || out.Requeue != outcome.NextPassNow || !strings.Contains(out.Message, "rolling back to the render of generation 1") {
		t.Fatalf("the last failure rolls back at once, got %+v, %+v", s.Attempt, out)
	}

	out = a.rolledBack(&s, s.Attempt, s.LastGoodRender)
	if out.Reason != ReasonRolledBack || !out.Stalled || s.History[len(s.History)-1].Result != ResultRolledBack {
		t.Fatalf("a rollback applied is RolledBack and in the history, got %+v", out)
	}
	entries := len(s.History)
	if a.rolledBack(&s, s.Attempt, s.LastGoodRender); len(s.History) != entries {
		t.Fatal("a rollback kept in sync adds no history entry")
	}
}

func TestAttemptsSettleWithoutARenderToRollBackTo(t *testing.T) {
	a := attempts{remediation: &Remediation{Strategy: RemediateRollback}, now: metav1.Now()}
	var s Status
	a.begin(&s, 1, "sha256:only", "")
	out := a.settle(&s, nil, outcome.Outcome{Reason: ReasonError, Message: "failed", FailedAttempt: true, Stalled: true})
	if s.Attempt.Result != ResultFailed || !out.Stalled || !strings.HasSuffix(out.Message, "no earlier Ready render is kept to roll back to") {
		t.Fatalf("got %+v, %+v", s.Attempt, out)
	}
	if !a.keepsRender(&s, "sha256:only") {
		t.Fatal("a Ready render is kept when none is")
	}
	s.LastGoodRender = &StoredRender{RenderDigest: "sha256:only"}
	if a.keepsRender(&s, "sha256:only") || (attempts{}).keepsRender(&Status{}, "sha256:x") {
		t.Fatal("a render kept already, or without the Rollback strategy, is not kept again")
	}
	entries := len(s.History)
	if out := a.settle(&s, nil, outcome.Outcome{Reason: ReasonReady}); s.Attempt.Result != ResultReady || out.Reason != ReasonReady || len(s.History) != entries+1 {
		t.Fatalf("a Ready try is recorded in the attempt and the history, got %+v", s.Attempt)
	}
	if a.settle(&s, nil, outcome.Outcome{Reason: ReasonReady}); len(s.History) != entries+1 {
		t.Fatal("a Ready try is recorded once")
	}
}
