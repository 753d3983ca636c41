package manifests

// UserError is an error that only a change fixes — to the manifests, the
// component, or what its identity may do — so trying again unchanged is
// pointless: invalid manifests, a refused adoption.
type UserError struct{ Err error }

func (e *UserError) Error() string { return e.Err.Error() }

func (e *UserError) Unwrap() error { return e.Err }
