package outcome

import (
	"errors"
	"fmt"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// Outcome is what a reconcile concluded: the Ready reason and message, and
// when to look again.
type Outcome struct {
	Reason  string
	Message string
	Requeue time.Duration
	Err     error  // returned to controller-runtime (its rate limiter backs off)
	Event   string // the Event's reason, when not the Ready reason
	Gone    bool   // the finalizer was removed: no status to write
	Stalled bool   // only a change helps: Stalled, and no backoff
	// Warning makes the Event a Warning whatever the reason: a fetch or
	// render that failed, even one retried (Retrying).
	Warning bool
	// FailedAttempt: the try at the render failed (an object failed or was
	// refused, or it was not ready in time), which remediation counts.
	FailedAttempt bool
	// Held is a wave that has waited longer than WaveHeldAfter; set only
	// when there is a Notifier.
	Held *Held
	// Interrupted: the process's stop cut the pass short (Interrupt).
	Interrupted bool
}

// Interrupt is the outcome of a pass that the stop of its process cut
// short (a rollout of the operator, a lost lease, a kind no longer
// served): it did not fail, whatever its context's cancellation made its
// steps return. The status records what the pass did (its inventory) and
// keeps saying what it said; the next pass, this replica's or the next
// leader's, reports.
func Interrupt(o Outcome) Outcome {
	return Outcome{Reason: o.Reason, Message: o.Message, Gone: o.Gone, Interrupted: true}
}

// Held is a wave held longer than a bound: which and since when
// (heldWave), and what the alert says.
type Held struct {
	Wave, Message string
}

// Warns tells whether the outcome is a failure or a problem: its Event is
// a Warning, and its reconcile is logged.
func (o Outcome) Warns() bool {
	switch o.Reason {
	case api.ReasonError, api.ReasonTimeout, api.ReasonDeletionBlocked, api.ReasonRolledBack, api.ReasonWriteLoop, api.ReasonTestFailed, api.ReasonVerificationFailed:
		return true
	}
	return o.Warning || o.Err != nil
}

// DescribeWaiting lists the first few objects a wave waits for, with
// their progress.
func DescribeWaiting(prefix string, waiting []engine.Waiting) string {
	return describeWith(prefix, waiting, engine.Summarize)
}

// DescribeStates lists the first few objects a wave waits for without
// their progress: the status says which objects are not ready and in what
// state, and is not written again at each replica of a rollout.
func DescribeStates(prefix string, waiting []engine.Waiting) string {
	return describeWith(prefix, waiting, engine.SummarizeStates)
}

func describeWith(prefix string, waiting []engine.Waiting, summarize func([]engine.Waiting, int) string) string {
	if len(waiting) == 0 {
		return prefix
	}
	return prefix + ": " + summarize(waiting, 5)
}

// ErrWrittenAhead ends a pass once it has written new inventory items
// ahead of their objects. A Reconcile writes the status once: the next one,
// which starts at once, creates the objects and reports what they do.
var ErrWrittenAhead = errors.New("the inventory was written ahead of its objects")

// NextPassNow is how soon the Reconcile after one that wrote ahead starts:
// a status write sends the reconciler no event.
const NextPassNow = time.Millisecond

// Continued is the outcome of a Reconcile that wrote the status ahead of a
// pass: the status as written, and the next Reconcile at once.
func Continued(written *api.Status) Outcome {
	o := Outcome{Reason: api.ReasonProcessing, Requeue: NextPassNow}
	if c := written.ReadyCondition(); c != nil {
		o.Reason, o.Message = c.Reason, c.Message
	}
	return o
}

// NewKindRecheck is how soon a pass that is not done runs again when it
// wrote objects of a kind that had no event handler yet: what happened to
// them before the handler came (a purged hook's deletion, a Job's
// completion) is not replayed to it.
const NewKindRecheck = 100 * time.Millisecond

// UnwatchedDeletionRecheck is how soon a pass that is not done runs again
// when it waits for an object its target's cache does not hold (engine's
// Result.Recheck: another shard's object it deleted to create it again).
const UnwatchedDeletionRecheck = time.Second

// WithRechecks is o for a pass that wrote objects of kinds that had no
// event handler yet (newKinds), or that waits for an object no event will
// announce (res.Recheck): when it is not done, it runs again within
// NewKindRecheck or UnwatchedDeletionRecheck.
func (o Outcome) WithRechecks(newKinds bool, res engine.Result) Outcome {
	switch {
	case res.Done:
	case newKinds:
		o.Requeue = min(o.Requeue, NewKindRecheck)
	case res.Recheck:
		o.Requeue = min(o.Requeue, UnwatchedDeletionRecheck)
	}
	return o
}

// HeldAfter is o for a wave (prefix) of a component that has been
// processing since then: held once that is bound ago and the status
// records it (a pass that has just begun to wait looks again within
// bound), else looked at again when bound is reached, so that a held wave
// is told even without events.
func (o Outcome) HeldAfter(prefix string, since time.Time, recorded bool, bound time.Duration, generation int64) Outcome {
	waited := time.Since(since)
	if waited < bound || !recorded {
		o.Requeue = min(o.Requeue, max(bound-waited, 0)+time.Millisecond)
		return o
	}
	o.Held = &Held{Wave: heldWave(prefix, since, generation),
		Message: fmt.Sprintf("not ready after %s, %s", bound, o.Message)}
	return o
}

// heldWave names a wave held longer than the bound: the wave (prefix),
// the generation and when the component began to process it; a wave held
// in an attempt is told once.
func heldWave(prefix string, since time.Time, generation int64) string {
	return fmt.Sprintf("%s of generation %d since %d", prefix, generation, since.Unix())
}
