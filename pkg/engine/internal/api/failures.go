package api

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ObjectError is the failure of one object's step in a pass: which step
// failed on which object, and why, a write refused before it was sent (the
// adoption policy, another owner's takeover) included. It wraps its cause
// once. NeedsChange and errors.As see through it to Err.
type ObjectError struct {
	Object manifests.ObjectKey
	// Action is the step that failed: ActionApply (also a dry run of it in
	// Diff), ActionReady (the object failed: Err is its status),
	// ActionPurge, ActionPrune, ActionDelete, ActionOrphan or ActionRunHook.
	Action Action
	Err    error

	// wording is the message's format for the object, when it is not the
	// action's (see failureWording).
	wording string
}

// failureWording words, per action, what failed on an object (%s).
var failureWording = map[Action]string{
	ActionApply:   "applying %s",
	ActionReady:   "%s failed",
	ActionPurge:   "purging %s",
	ActionPrune:   "deleting %s",
	ActionDelete:  "deleting %s",
	ActionOrphan:  "orphaning %s",
	ActionRunHook: "running delete hook %s",
}

// Wordings of failures that an action's own wording does not say.
const (
	WordingDryRun     = "dry run of applying %s"
	WordingHookFailed = "delete hook %s failed"
	WordingHookDelete = "deleting delete hook %s"
	WordingRead       = "reading %s"
	// wordingRefused words a refusal to write: "<object> <why>", the
	// object named once.
	wordingRefused = "%s %s"
)

// Error says "<what failed on the object>: <why>": "applying ConfigMap
// ns/a: <cause>", or for an object that failed, "batch/Job ns/m failed:
// <status>".
func (e *ObjectError) Error() string {
	wording := e.wording
	if wording == "" {
		wording = failureWording[e.Action]
	}
	if wording == "" {
		wording = string(e.Action) + " %s"
	}
	if wording == wordingRefused {
		return fmt.Sprintf(wording, e.Object, e.Err)
	}
	return fmt.Sprintf(wording, e.Object) + ": " + e.Err.Error()
}

func (e *ObjectError) Unwrap() error { return e.Err }

// StepError wraps err, when there is one, as the failure of action on key.
func StepError(action Action, key manifests.ObjectKey, err error) error {
	return WordedError(action, "", key, err)
}

// WordedError is objectError with a wording of its own ("" for the action's).
// An error that is an ObjectError of key already is returned as it is: an
// object's failure is wrapped once.
func WordedError(action Action, wording string, key manifests.ObjectKey, err error) error {
	if err == nil {
		return nil
	}
	var known *ObjectError
	if errors.As(err, &known) && known.Object == key {
		return err
	}
	return &ObjectError{Object: key, Action: action, Err: err, wording: wording}
}

// Refused is the ObjectError of a write refused before it is sent (the
// adoption policy, another owner's takeover): a manifests.UserError, since
// only a change helps.
func Refused(key manifests.ObjectKey, why error) error {
	return &ObjectError{Object: key, Action: ActionApply, Err: &manifests.UserError{Err: why}, wording: wordingRefused}
}

// AsStep is err, the failure of an apply of key, as the failure of action
// (a delete hook's run): an ObjectError of key takes the action, anything
// else is wrapped.
func AsStep(action Action, key manifests.ObjectKey, err error) error {
	var known *ObjectError
	if errors.As(err, &known) && known.Object == key && known.wording == "" {
		relabelled := *known
		relabelled.Action = action
		return &relabelled
	}
	return StepError(action, key, err)
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
		ImmutableReason(e), e.PolicyKey, manifests.UpdateReplaceOnImmutable, e.Err)
}

// ImmutableReason names the immutable fields: "field spec.template is immutable".
func ImmutableReason(e *ImmutableFieldError) string {
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
