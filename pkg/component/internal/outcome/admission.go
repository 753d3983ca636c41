package outcome

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

// AdmissionRefusedError is a status write that an admission policy or
// webhook refused: not a problem of the component's CRD, so it says who
// refused and what it said, which is what the owner of the policy or of the
// component acts on.
type AdmissionRefusedError struct {
	By, Said string
	Err      error
}

func (e *AdmissionRefusedError) Error() string {
	return "admission refused it: " + e.By + " denied request: " + e.Said
}

func (e *AdmissionRefusedError) Unwrap() error { return e.Err }

// AdmissionRefusal returns err as an AdmissionRefusedError when the API
// server's answer says an admission policy or webhook refused the request,
// whatever its code; otherwise nil.
func AdmissionRefusal(err error) *AdmissionRefusedError {
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
			return &AdmissionRefusedError{By: m[1], Said: said, Err: err}
		}
	}
	return nil
}
