package outcome

import (
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Failure turns an error of a Reconcile into its outcome, given the
// component's retry interval and its status as last written: when to look again
// (at once after a write ahead, after a Retriable's wait, on a conflict,
// with backoff) and whether only a change helps (Stalled: refusals, a
// failed verification, a status the API server rejects or admission
// refuses, a write loop, an error only a change fixes). A Stalled outcome
// of a source that says when it is looked at again (manifests.RecheckError)
// comes back then.
func Failure(err error, retry time.Duration, written *api.Status) Outcome {
	o := failure(err, retry, written)
	var recheck *manifests.RecheckError
	if o.Stalled && errors.As(err, &recheck) && recheck.After > 0 {
		o.Requeue = recheck.After
	}
	return o
}

// failure is Failure's outcome before a source's recheck.
func failure(err error, retry time.Duration, written *api.Status) Outcome {
	if errors.Is(err, ErrWrittenAhead) {
		return Continued(written)
	}
	if o, ok := refused(err, retry); ok {
		return o
	}
	if retriable, ok := api.AsRetriable(err); ok {
		o := Outcome{Reason: api.ReasonRetrying, Message: err.Error(), Requeue: retry}
		if retriable.RetryAfter != nil {
			o.Requeue = *retriable.RetryAfter
		}
		return o
	}
	if apierrors.IsConflict(err) {
		return Outcome{Reason: api.ReasonRetrying, Message: err.Error(), Requeue: time.Second}
	}
	if o, failed := verificationFailed(err, retry); failed {
		return o
	}
	var rejected *RejectedStatusError
	if errors.As(err, &rejected) {
		// Only a new CRD helps, and its update sends no event: look again
		// at the retry interval rather than with ever longer backoff.
		return Outcome{Reason: api.ReasonError, Event: api.ReasonStatusRejected, Message: err.Error(), Requeue: retry, Stalled: true}
	}
	var refusal *AdmissionRefusedError
	if errors.As(err, &refusal) {
		// Only a change of the policy, the webhook or the component helps.
		return Outcome{Reason: api.ReasonError, Event: api.ReasonStatusAdmissionRefused, Message: err.Error(), Requeue: retry, Stalled: true}
	}
	var loop *engine.WriteLoopError
	if errors.As(err, &loop) {
		// The object is left alone until RetryAt, whatever events come.
		return Outcome{Reason: api.ReasonWriteLoop, Message: err.Error(), Requeue: max(time.Until(loop.RetryAt), time.Second), Stalled: true}
	}
	var tooLarge *TooLargeError
	if engine.NeedsChange(err) || errors.As(err, &tooLarge) {
		// Trying again unchanged cannot help: look again on a change, or at
		// the retry interval, rather than with ever longer backoff.
		return Outcome{Reason: api.ReasonError, Message: err.Error(), Requeue: retry, Stalled: true}
	}
	return Outcome{Reason: api.ReasonError, Message: err.Error(), Err: err}
}

// verificationFailed is the outcome of a render stopped by a failed
// verification: only a change helps (a signed source, the right key), so
// it is Stalled and looked at again at the retry interval.
func verificationFailed(err error, retry time.Duration) (Outcome, bool) {
	var failed *manifests.VerificationError
	if !errors.As(err, &failed) {
		return Outcome{}, false
	}
	return Outcome{Reason: api.ReasonVerificationFailed, Message: err.Error(), Requeue: retry, Stalled: true}, true
}
