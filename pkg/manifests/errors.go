package manifests

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
