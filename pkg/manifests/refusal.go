package manifests

// RefusalError is a UserError whose Ready condition carries a reason of its
// own, such as SourceNotAllowed or DecryptionFailed, so that tools and
// people can tell a policy's refusal from a broken manifest. Nothing was
// rendered or written; only a change fixes it.
type RefusalError struct {
	// Reason is the Ready condition's reason: CamelCase, as
	// metav1.Condition requires.
	Reason string
	Err    error
}

func (e *RefusalError) Error() string { return e.Err.Error() }

func (e *RefusalError) Unwrap() error { return e.Err }
