package outcome

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestRecheck: a failure only a change fixes comes back when its source
// says it is looked at again, not at the retry interval; a failure that may
// pass alone is retried as before.
func TestRecheck(t *testing.T) {
	const retry, interval = 10 * time.Second, time.Hour
	recheck := func(err error) error {
		return fmt.Errorf("rendering: %w", &manifests.RecheckError{After: interval, Err: err})
	}
	cases := []struct {
		name    string
		err     error
		reason  string
		requeue time.Duration
	}{
		{"a refusal with a reason", recheck(&manifests.RefusalError{Reason: "RefNotFound", Err: errors.New("no branch nope")}), "RefNotFound", interval},
		{"a failed verification", recheck(&manifests.VerificationError{Err: errors.New("not signed")}), api.ReasonVerificationFailed, interval},
		{"an error only a change fixes", recheck(&manifests.UserError{Err: errors.New("not found")}), api.ReasonError, interval},
		{"without a recheck", &manifests.UserError{Err: errors.New("not found")}, api.ReasonError, retry},
		{"a retriable error", recheck(api.Retriable(errors.New("connection refused"), 0)), api.ReasonRetrying, retry},
	}
	for _, c := range cases {
		o := Failure(c.err, retry, &api.Status{})
		if o.Reason != c.reason || o.Requeue != c.requeue {
			t.Errorf("%s: reason %s, requeue %s; want %s, %s", c.name, o.Reason, o.Requeue, c.reason, c.requeue)
		}
	}
}
