package component

import (
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// failure turns an error of a Reconcile into its outcome, given the
// component's retry interval and its status as last written: when to look again
// (at once after a write ahead, after a Retriable's wait, on a conflict,
// with backoff) and whether only a change helps (Stalled: refusals, a
// failed verification, a status the API server rejects or admission
// refuses, a write loop, an error only a change fixes).
func failure(err error, retry time.Duration, written *Status) outcome {
	if errors.Is(err, errWrittenAhead) {
		return continued(written)
	}
	if o, ok := refused(err, retry); ok {
		return o
	}
	if retriable, ok := api.AsRetriable(err); ok {
		o := outcome{reason: ReasonRetrying, message: err.Error(), requeue: retry}
		if retriable.RetryAfter != nil {
			o.requeue = *retriable.RetryAfter
		}
		return o
	}
	if apierrors.IsConflict(err) {
		return outcome{reason: ReasonRetrying, message: err.Error(), requeue: time.Second}
	}
	if o, failed := verificationFailed(err, retry); failed {
		return o
	}
	var rejected *rejectedStatusError
	if errors.As(err, &rejected) {
		// Only a new CRD helps, and its update sends no event: look again
		// at the retry interval rather than with ever longer backoff.
		return outcome{reason: ReasonError, event: ReasonStatusRejected, message: err.Error(), requeue: retry, stalled: true}
	}
	var refusal *admissionRefusedError
	if errors.As(err, &refusal) {
		// Only a change of the policy, the webhook or the component helps.
		return outcome{reason: ReasonError, event: ReasonStatusAdmissionRefused, message: err.Error(), requeue: retry, stalled: true}
	}
	var loop *engine.WriteLoopError
	if errors.As(err, &loop) {
		// The object is left alone until RetryAt, whatever events come.
		return outcome{reason: ReasonWriteLoop, message: err.Error(), requeue: max(time.Until(loop.RetryAt), time.Second), stalled: true}
	}
	var tooLarge *tooLargeError
	if engine.NeedsChange(err) || errors.As(err, &tooLarge) {
		// Trying again unchanged cannot help: look again on a change, or at
		// the retry interval, rather than with ever longer backoff.
		return outcome{reason: ReasonError, message: err.Error(), requeue: retry, stalled: true}
	}
	return outcome{reason: ReasonError, message: err.Error(), err: err}
}

// verificationFailed is the outcome of a render stopped by a failed
// verification: only a change helps (a signed source, the right key), so
// it is Stalled and looked at again at the retry interval.
func verificationFailed(err error, retry time.Duration) (outcome, bool) {
	var failed *manifests.VerificationError
	if !errors.As(err, &failed) {
		return outcome{}, false
	}
	return outcome{reason: ReasonVerificationFailed, message: err.Error(), requeue: retry, stalled: true}, true
}
