package engine

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ObjectError is the failure of one object's step in a pass: what the pass
// was doing to which object, and why it failed. NeedsChange and errors.As
// see through it to Err.
type ObjectError struct {
	Object manifests.ObjectKey
	// Action is what the pass was doing: "applying", "purging", "deleting",
	// "running delete hook", "deleting delete hook", "dry run of applying".
	Action string
	Err    error
}

func (e *ObjectError) Error() string {
	return e.Action + " " + e.Object.String() + ": " + e.Err.Error()
}

func (e *ObjectError) Unwrap() error { return e.Err }

// objectError wraps err, when there is one, as the failure of action on key.
func objectError(action string, key manifests.ObjectKey, err error) error {
	if err == nil {
		return nil
	}
	return &ObjectError{Object: key, Action: action, Err: err}
}

// MissingNamespaceError says that objects need a namespace that does not
// exist while the namespace policy forbids creating it.
type MissingNamespaceError struct {
	Namespace string
	Object    manifests.ObjectKey
}

func (e *MissingNamespaceError) Error() string {
	return fmt.Sprintf("%s needs namespace %s, which does not exist (namespace policy %s): create it or allow %s",
		e.Object, e.Namespace, manifests.NamespaceDoNotCreate, manifests.NamespaceCreate)
}

// ImmutableFieldError says that an update would change fields the API
// server does not let change (a Deployment's selector, say): the manifest
// must change back, or the object be replaced.
type ImmutableFieldError struct {
	// Fields are the immutable fields the update changes.
	Fields []string
	// PolicyKey is the update-policy annotation that allows replacing the object.
	PolicyKey string
	Err       error
}

func (e *ImmutableFieldError) Error() string {
	return fmt.Sprintf("%s; set %s: %s to re-create the object when this happens: %v",
		e.reason(), e.PolicyKey, manifests.UpdateReplaceOnImmutable, e.Err)
}

// reason names the immutable fields: "field spec.template is immutable".
func (e *ImmutableFieldError) reason() string {
	noun, verb := "field", "is"
	if len(e.Fields) > 1 {
		noun, verb = "fields", "are"
	}
	return fmt.Sprintf("%s %s %s immutable", noun, strings.Join(e.Fields, ", "), verb)
}

func (e *ImmutableFieldError) Unwrap() error { return e.Err }

// NeedsChange tells whether err is one that only a change fixes: a
// UserError, an invalid annotation, a namespace the policy may not create, an
// immutable field,
// or the API server refusing the request itself (forbidden, unauthorized,
// invalid, bad request) rather than failing to serve it.
func NeedsChange(err error) bool {
	var (
		user      *manifests.UserError
		annotated *manifests.AnnotationError
		missing   *MissingNamespaceError
		immutable *ImmutableFieldError
	)
	switch {
	case errors.As(err, &user), errors.As(err, &annotated), errors.As(err, &missing), errors.As(err, &immutable):
		return true
	}
	return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)
}
