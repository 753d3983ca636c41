package outcome

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAdmissionRefusal: the API server's words for a refusal by a policy or
// a webhook name who refused, whatever the code; other errors are not
// refusals.
func TestAdmissionRefusal(t *testing.T) {
	cases := []struct {
		code     int32
		message  string
		by, said string
	}{
		{422, `components.wavekit.dev "a" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no`,
			"ValidatingAdmissionPolicy 'p' with binding 'b'", "no"},
		{403, `ValidatingAdmissionPolicy 'p' denied request: not today`, "ValidatingAdmissionPolicy 'p'", "not today"},
		{400, `admission webhook "guard.example.com" denied the request: frozen`, `admission webhook "guard.example.com"`, "frozen"},
		{400, `admission webhook "guard.example.com" denied the request without explanation`, `admission webhook "guard.example.com"`, "without explanation"},
		{422, `Component.wavekit.dev "a" is invalid: status.state: Unsupported value`, "", ""},
	}
	for _, c := range cases {
		err := &apierrors.StatusError{ErrStatus: metav1.Status{Code: c.code, Message: c.message}}
		got := AdmissionRefusal(err)
		switch {
		case c.by == "" && got != nil:
			t.Errorf("%q: a refusal by %q", c.message, got.By)
		case c.by != "" && (got == nil || got.By != c.by || got.Said != c.said):
			t.Errorf("%q: got %+v, want by %q said %q", c.message, got, c.by, c.said)
		}
	}
}
