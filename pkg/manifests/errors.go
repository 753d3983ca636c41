package manifests

import "time"

// UserError is an error that only a change fixes — to the manifests, the
// component, or what its identity may do — so trying again unchanged is
// pointless: invalid manifests, a refused adoption.
type UserError struct{ Err error }

func (e *UserError) Error() string { return e.Err.Error() }

func (e *UserError) Unwrap() error { return e.Err }

// VerificationError says that a source failed the verification its
// component asks for (a signature, a provenance file): nothing of it was
// rendered. Only a change (a signed source, the right key) fixes it.
type VerificationError struct{ Err error }

func (e *VerificationError) Error() string { return e.Err.Error() }

func (e *VerificationError) Unwrap() error { return e.Err }

// RecheckError says when a source that failed for what it is — a commit over
// a bound, unsigned, a ref or path it lacks — is looked at again: after
// After, the source's own interval, when a new version of it may be there
// to find. Trying sooner finds the same source. The component reconciler
// comes back after After to a failure only a change fixes (Stalled),
// rather than at its retry interval; a change of the component comes back
// at once, as always.
type RecheckError struct {
	After time.Duration
	Err   error
}

func (e *RecheckError) Error() string { return e.Err.Error() }

func (e *RecheckError) Unwrap() error { return e.Err }
