package attempts

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
)

// The attempts' decisions, from a status alone: no cluster, no clock.

func TestAttemptsBeginKeepsOrRestartsAnAttempt(t *testing.T) {
	start := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := Policy{Retry: time.Minute, Remediation: &api.Remediation{Retries: 1}, Now: start}
	var s api.Status
	first := a.Begin(&s, 1, "sha256:a", "")
	if s.Attempt != first || first.Started != start || first.Result != "" {
		t.Fatalf("a new render starts an attempt now, got %+v", first)
	}
	if again := a.Begin(&s, 1, "sha256:a", ""); again != first {
		t.Fatal("the same render is the attempt under way")
	}
	if other := a.Begin(&s, 1, "sha256:a", "request"); other == first || other.ReconcileRequest != "request" {
		t.Fatal("a new reconcile request starts a new attempt")
	}
	failed := s.Attempt
	failed.Result, failed.Failures, failed.Finished = api.ResultFailed, 1, &start
	a.Now = metav1.NewTime(start.Add(30 * time.Second))
	if a.Begin(&s, 1, "sha256:a", "request"); failed.Result != api.ResultFailed {
		t.Fatal("a failed try is tried again before its retry interval")
	}
	a.Now = metav1.NewTime(start.Add(time.Minute))
	if a.Begin(&s, 1, "sha256:a", "request"); failed.Result != "" || failed.Started != a.Now || failed.Finished != nil {
		t.Fatalf("a failed try whose retry is due starts again, got %+v", failed)
	}
}

func TestAttemptsSettleRetriesThenRollsBack(t *testing.T) {
	start := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := Policy{Retry: time.Minute, Remediation: &api.Remediation{Retries: 1, Strategy: api.RemediateRollback}, Now: start}
	s := api.Status{LastGoodRender: &api.StoredRender{Generation: 1, RenderDigest: "sha256:good"}}
	a.Begin(&s, 2, "sha256:bad", "")
	failed := outcome.Outcome{Reason: api.ReasonError, Message: "job failed", FailedAttempt: true}

	out := a.Settle(&s, nil, failed)
	if s.Attempt.Failures != 1 || s.Attempt.Result != api.ResultFailed || out.Requeue != time.Minute || out.Stalled {
		t.Fatalf("the first failure is retried after the retry interval, got %+v, %+v", s.Attempt, out)
	}
	if !strings.Contains(out.Message, "try 1 of 2 failed") || len(s.History) != 1 {
		t.Fatalf("message %q, history %d", out.Message, len(s.History))
	}
	if a.Settle(&s, nil, failed); s.Attempt.Failures != 1 {
		t.Fatal("a failure is counted once per try")
	}
	a.Now = metav1.NewTime(start.Add(time.Minute))
	a.Begin(&s, 2, "sha256:bad", "")
	out = a.Settle(&s, nil, failed)
	if s.Attempt.Result != api.ResultRolledBack || out.Requeue != outcome.NextPassNow || !strings.Contains(out.Message, "rolling back to the render of generation 1") {
		t.Fatalf("the last failure rolls back at once, got %+v, %+v", s.Attempt, out)
	}

	out = a.RolledBack(&s, s.Attempt, s.LastGoodRender)
	if out.Reason != api.ReasonRolledBack || !out.Stalled || s.History[len(s.History)-1].Result != api.ResultRolledBack {
		t.Fatalf("a rollback applied is RolledBack and in the history, got %+v", out)
	}
	entries := len(s.History)
	if a.RolledBack(&s, s.Attempt, s.LastGoodRender); len(s.History) != entries {
		t.Fatal("a rollback kept in sync adds no history entry")
	}
}

func TestAttemptsSettleWithoutARenderToRollBackTo(t *testing.T) {
	a := Policy{Remediation: &api.Remediation{Strategy: api.RemediateRollback}, Now: metav1.Now()}
	var s api.Status
	a.Begin(&s, 1, "sha256:only", "")
	out := a.Settle(&s, nil, outcome.Outcome{Reason: api.ReasonError, Message: "failed", FailedAttempt: true, Stalled: true})
	if s.Attempt.Result != api.ResultFailed || !out.Stalled || !strings.HasSuffix(out.Message, "no earlier Ready render is kept to roll back to") {
		t.Fatalf("got %+v, %+v", s.Attempt, out)
	}
	if !a.KeepsRender(&s, "sha256:only") {
		t.Fatal("a Ready render is kept when none is")
	}
	s.LastGoodRender = &api.StoredRender{RenderDigest: "sha256:only"}
	if a.KeepsRender(&s, "sha256:only") || (Policy{}).KeepsRender(&api.Status{}, "sha256:x") {
		t.Fatal("a render kept already, or without the Rollback strategy, is not kept again")
	}
	entries := len(s.History)
	if out := a.Settle(&s, nil, outcome.Outcome{Reason: api.ReasonReady}); s.Attempt.Result != api.ResultReady || out.Reason != api.ReasonReady || len(s.History) != entries+1 {
		t.Fatalf("a Ready try is recorded in the attempt and the history, got %+v", s.Attempt)
	}
	if a.Settle(&s, nil, outcome.Outcome{Reason: api.ReasonReady}); len(s.History) != entries+1 {
		t.Fatal("a Ready try is recorded once")
	}
}

func TestAttemptsRollBackOnRequest(t *testing.T) {
	start := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := Policy{Retry: time.Minute, Remediation: &api.Remediation{Retries: 3, Strategy: api.RemediateRollback}, Now: start}
	s := api.Status{LastGoodRender: &api.StoredRender{Generation: 1, RenderDigest: "sha256:good"}}
	att := a.Begin(&s, 2, "sha256:new", "")
	if a.RollBackOnRequest(&s, att, "") || a.RollBackOnRequest(&s, att, "t1") {
		t.Fatal("no rollback without a request, nor for a request that did not begin the attempt")
	}
	att = a.Begin(&s, 2, "sha256:new", "t1")
	if !a.RollBackOnRequest(&s, att, "t1") || att.Result != api.ResultRolledBack {
		t.Fatalf("the request that began the attempt rolls it back, got %+v", att)
	}
	out := a.RolledBack(&s, att, s.LastGoodRender)
	if !strings.Contains(out.Message, "rolled back to the render of generation 1 from generation 2: a rollback was requested") {
		t.Fatalf("message %q", out.Message)
	}
	if again := a.Begin(&s, 2, "sha256:new", "t1"); again.Result != api.ResultRolledBack {
		t.Fatal("the rollback stays while the request stays")
	}
	if next := a.Begin(&s, 2, "sha256:new", "t2"); next.Result != "" {
		t.Fatal("a new reconcile request applies the render again")
	}
	kept := api.Status{LastGoodRender: &api.StoredRender{Generation: 2, RenderDigest: "sha256:new"}}
	if att := a.Begin(&kept, 2, "sha256:new", "t3"); a.RollBackOnRequest(&kept, att, "t3") {
		t.Fatal("the render kept is the attempt's own: nothing earlier to roll back to")
	}
}
