package report

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

func TestOutcomeKind(t *testing.T) {
	ready := &metav1.Condition{Type: api.ConditionReady, Status: metav1.ConditionTrue, Reason: api.ReasonReady, Message: "every object is applied and ready"}
	processing := &metav1.Condition{Type: api.ConditionReady, Status: metav1.ConditionFalse, Reason: api.ReasonProcessing, Message: "waiting for wave 1"}
	failing := &metav1.Condition{Type: api.ConditionReady, Status: metav1.ConditionFalse, Reason: api.ReasonError, Message: "rendering: boom"}
	for _, tc := range []struct {
		name     string
		before   *metav1.Condition
		rendered bool // a new generation or revision since before
		o        outcome.Outcome
		want     notify.Kind // "": nothing to tell
	}{
		{"Ready at install", nil, false, outcome.Outcome{Reason: api.ReasonReady}, notify.KindReady},
		{"Ready after processing", processing, false, outcome.Outcome{Reason: api.ReasonReady}, notify.KindReady},
		{"Ready after a failure", failing, false, outcome.Outcome{Reason: api.ReasonReady}, notify.KindReady},
		{"Ready again: no news (a requeue, a restart)", ready, false, outcome.Outcome{Reason: api.ReasonReady, Message: "every object is applied and ready"}, ""},
		{"Ready at a new generation or revision, in one pass: news", ready, true, outcome.Outcome{Reason: api.ReasonReady, Message: "every object is applied and ready"}, notify.KindReady},
		{"Ready with another message: no news", ready, false, outcome.Outcome{Reason: api.ReasonReady, Message: "…; 1 foreign instance keeps a CRD"}, ""},
		{"work in progress", ready, false, outcome.Outcome{Reason: api.ReasonProcessing, Message: "waiting for wave 1"}, ""},
		{"deleting", ready, false, outcome.Outcome{Reason: api.ReasonDeleting}, ""},
		{"a failure", ready, false, outcome.Outcome{Reason: api.ReasonError, Message: "rendering: boom"}, notify.KindFailed},
		{"the same failure again: no news", failing, false, outcome.Outcome{Reason: api.ReasonError, Message: "rendering: boom"}, ""},
		{"another failure", failing, false, outcome.Outcome{Reason: api.ReasonError, Message: "rendering: bang"}, notify.KindFailed},
		{"a stall", processing, false, outcome.Outcome{Reason: api.ReasonTimeout, Message: "not ready after 10m0s", Stalled: true}, notify.KindStalled},
		{"a retried fetch that warns", processing, false, outcome.Outcome{Reason: api.ReasonRetrying, Message: "fetching: refused", Warning: true}, notify.KindFailed},
		{"a retry that does not warn", processing, false, outcome.Outcome{Reason: api.ReasonRetrying, Message: "conflict"}, ""},
		{"a refusal of its own reason", processing, false, outcome.Outcome{Reason: "CrossNamespaceRefused", Message: "refused", Err: errTest}, notify.KindFailed},
		{"a rollback", failing, false, outcome.Outcome{Reason: api.ReasonRolledBack, Message: "rolled back to generation 2"}, notify.KindRolledBack},
		{"a blocked deletion", ready, false, outcome.Outcome{Reason: api.ReasonDeletionBlocked, Message: "1 foreign instance of Gadget.example.com exists"}, notify.KindDeletionBlocked},
		{"the same blocked deletion again: no news", &metav1.Condition{Status: metav1.ConditionFalse, Reason: api.ReasonDeletionBlocked,
			Message: "1 foreign instance of Gadget.example.com exists"}, false, outcome.Outcome{Reason: api.ReasonDeletionBlocked, Message: "1 foreign instance of Gadget.example.com exists"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, news := outcomeKind(tc.before, tc.rendered, tc.o)
			if !news {
				kind = ""
			}
			if kind != tc.want {
				t.Errorf("outcomeKind = %q, want %q", kind, tc.want)
			}
		})
	}
}

var errTest = &testError{}

type testError struct{}

func (*testError) Error() string { return "refused" }

// TestAlertsOffCostNothing: without a Notifier, what a Reconcile does for
// alerts allocates nothing.
func TestAlertsOffCostNothing(t *testing.T) {
	r := &Reporter{Operator: "test.wavekit.dev", Notes: NewNotes()}
	sr := &Recorder{Reporter: r}
	res := engine.Result{Actions: []engine.ObjectAction{{Object: manifests.ObjectKey{Kind: "ConfigMap", Name: "a"}, Action: engine.ActionUpdate, Corrected: true}},
		Drifted: []engine.Drift{{Object: manifests.ObjectKey{Kind: "ConfigMap", Name: "b"}, New: true}}}
	ctx := context.Background()
	o := outcome.Outcome{Reason: api.ReasonError, Message: "boom", Held: &outcome.Held{Wave: "w"}}
	allocs := testing.AllocsPerRun(100, func() {
		sr.notifyOutcome(ctx, sr.saidBefore(), o)
		sr.NotifyDrift(ctx, nil, res)
	})
	if allocs != 0 {
		t.Errorf("alerts off allocate %v times per reconcile, want 0", allocs)
	}
}
