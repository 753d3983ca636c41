package outcome

import (
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// RejectedStatusError is a status write the API server rejected as invalid
// (422). What the framework writes is valid by its own Status schema, so the
// component's CRD most likely comes from an older one (a field it still
// requires, a value it does not allow): the error says so and what to do,
// then what the server said of each field, one a line.
type RejectedStatusError struct {
	Hint   string
	Causes []string
	Err    error
}

func (e *RejectedStatusError) Error() string {
	return e.Hint + "\n" + strings.Join(e.Causes, "\n")
}

func (e *RejectedStatusError) Unwrap() error { return e.Err }

// RejectedFields returns the first field the API server rejected and what
// it said of each ("status.inventory[0].digest: Required value"), in its
// order, or its whole message when it named no field.
func RejectedFields(err error) (string, []string) {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
		return "", []string{err.Error()}
	}
	first := ""
	var causes []string
	for _, c := range status.Status().Details.Causes {
		if c.Field == "" || c.Field == "<nil>" {
			causes = append(causes, c.Message)
			continue
		}
		if first == "" {
			first = c.Field
		}
		causes = append(causes, c.Field+": "+c.Message)
	}
	return first, causes
}

// TooLargeError says that a status was not written because the component
// would be too large to store.
type TooLargeError struct{ Message string }

func (e *TooLargeError) Error() string { return e.Message }
