package manifests

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// UserError is an error that only a change fixes — to the manifests, the
// component, or what its identity may do — so trying again unchanged is
// pointless: invalid manifests, a refused adoption.
type UserError struct{ Err error }

func (e *UserError) Error() string { return e.Err.Error() }

func (e *UserError) Unwrap() error { return e.Err }

// NeedsChange tells whether err is one that only a change fixes: a
// UserError, an invalid annotation, a namespace the policy may not create,
// or the API server refusing the request itself (forbidden, unauthorized,
// invalid, bad request) rather than failing to serve it.
func NeedsChange(err error) bool {
	var (
		user      *UserError
		annotated *AnnotationError
		missing   *MissingNamespaceError
	)
	switch {
	case errors.As(err, &user), errors.As(err, &annotated), errors.As(err, &missing):
		return true
	}
	return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)
}
