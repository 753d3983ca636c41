// Package outcome is what a Reconcile concludes: an Outcome is the Ready
// condition's reason and message, when to look again, whether only a
// change helps (Stalled) and whether the try at a render failed. Failure
// turns any error of a pass into its Outcome, by the error's type: a
// refusal, a retriable error, a conflict, a failed verification, a status
// the API server rejects (RejectedStatusError) or an admission policy
// refuses (AdmissionRefusedError), a write loop, a status too large to
// store (TooLargeError), or a pass that wrote its inventory ahead of its
// objects (ErrWrittenAhead: the next Reconcile goes on at once).
package outcome
