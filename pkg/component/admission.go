package component

import (
	"errors"
	"regexp"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// admissionRefusals match the words the API server refuses a request with
// on behalf of a ValidatingAdmissionPolicy (422 Invalid by default, or the
// reason the policy gives), another admission policy, or an admission
// webhook (the code the webhook gives); each captures who refused and why.
var admissionRefusals = []*regexp.Regexp{
	regexp.MustCompile(`(ValidatingAdmissionPolicy '[^']*'(?: with binding '[^']*')?) denied request: ([\s\S]*)`),
	regexp.MustCompile(`((?:Mutating)?(?:AdmissionPolicy|policy) ['"][^'"]*['"](?: with binding '[^']*')?) denied request: ([\s\S]*)`),
	regexp.MustCompile(`(admission webhook "[^"]*") denied the request(?::\s*([\s\S]*)| (without explanation))`),
}

// admissionRefusedError is a status write that an admission policy or
// webhook refused: not a problem of the component's CRD, so it says who
// refused and what it said, which is what the owner of the policy or of the
// component acts on.
type admissionRefusedError struct {
	by, said string
	err      error
}

func (e *admissionRefusedError) Error() string {
	return "admission refused it: " + e.by + " denied request: " + e.said
}

func (e *admissionRefusedError) Unwrap() error { return e.err }

// admissionRefusal returns err as an admissionRefusedError when the API
// server's answer says an admission policy or webhook refused the request,
// whatever its code; otherwise nil.
func admissionRefusal(err error) *admissionRefusedError {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return nil
	}
	message := status.Status().Message
	for _, re := range admissionRefusals {
		if m := re.FindStringSubmatch(message); m != nil {
			said := m[2]
			if len(m) > 3 && said == "" {
				said = m[3]
			}
			return &admissionRefusedError{by: m[1], said: said, err: err}
		}
	}
	return nil
}
