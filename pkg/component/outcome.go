package component

import (
	"errors"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// outcome is what a reconcile concluded: the Ready reason and message, and
// when to look again.
type outcome struct {
	reason  string
	message string
	requeue time.Duration
	err     error  // returned to controller-runtime (its rate limiter backs off)
	event   string // the Event's reason, when not the Ready reason
	gone    bool   // the finalizer was removed: no status to write
	stalled bool   // only a change helps: Stalled, and no backoff
	// warning makes the Event a Warning whatever the reason: a fetch or
	// render that failed, even one retried (Retrying).
	warning bool
	// failedAttempt: the try at the render failed (an object failed or was
	// refused, or it was not ready in time), which remediation counts.
	failedAttempt bool
	// held is a wave that has waited longer than WaveHeldAfter; set only
	// when there is a Notifier.
	held *held
}

// held is a wave held longer than a bound: which and since when
// (heldWave), and what the alert says.
type held struct {
	wave, message string
}

// result names the outcome in the reconcile metrics.
func (o outcome) result() string {
	if o.gone {
		return resultDeleted
	}
	return o.reason
}

// warns tells whether the outcome is a failure or a problem: its Event is
// a Warning, and its reconcile is logged.
func (o outcome) warns() bool {
	switch o.reason {
	case ReasonError, ReasonTimeout, ReasonDeletionBlocked, ReasonRolledBack, ReasonWriteLoop, ReasonTestFailed, ReasonVerificationFailed:
		return true
	}
	return o.warning || o.err != nil
}

// describeWaiting lists the first few objects a wave waits for, with
// their progress.
func describeWaiting(prefix string, waiting []engine.Waiting) string {
	return describeWith(prefix, waiting, engine.Summarize)
}

// describeStates lists the first few objects a wave waits for without
// their progress: the status says which objects are not ready and in what
// state, and is not written again at each replica of a rollout.
func describeStates(prefix string, waiting []engine.Waiting) string {
	return describeWith(prefix, waiting, engine.SummarizeStates)
}

func describeWith(prefix string, waiting []engine.Waiting, summarize func([]engine.Waiting, int) string) string {
	if len(waiting) == 0 {
		return prefix
	}
	return prefix + ": " + summarize(waiting, 5)
}

// errWrittenAhead ends a pass once it has written new inventory items
// ahead of their objects. A Reconcile writes the status once: the next one,
// which starts at once, creates the objects and reports what they do.
var errWrittenAhead = errors.New("the inventory was written ahead of its objects")

// nextPassNow is how soon the Reconcile after one that wrote ahead starts:
// a status write sends the reconciler no event.
const nextPassNow = time.Millisecond

// continued is the outcome of a Reconcile that wrote the status ahead of a
// pass: the status as written, and the next Reconcile at once.
func continued(written *Status) outcome {
	o := outcome{reason: ReasonProcessing, requeue: nextPassNow}
	if c := written.ReadyCondition(); c != nil {
		o.reason, o.message = c.Reason, c.Message
	}
	return o
}
