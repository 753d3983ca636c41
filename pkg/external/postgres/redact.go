package postgres

import (
	"fmt"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/external"
)

// redacted is an error whose message has the request's passwords
// replaced; it unwraps to the error it was made from.
type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// failed returns err as the error of kind's resource name, doing what,
// with every password of the request (the values of the credentials' and
// the Secret's keys that name a password) replaced by [redacted].
func failed(req external.Request, kind, name, doing string, err error) error {
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf("%s %q: %s: %v", kind, name, doing, err)
	for _, secret := range []map[string][]byte{req.Credentials, req.Secret} {
		for key, value := range secret {
			if strings.Contains(strings.ToLower(key), "password") && len(value) > 0 {
				msg = strings.ReplaceAll(msg, string(value), "[redacted]")
			}
		}
	}
	return &redacted{msg: msg, err: err}
}
