package outcome

import (
	"errors"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// refused turns a manifests.RefusalError into its outcome: Ready False with
// the error's own reason, Stalled (only a change helps), looked at again
// at the retry interval, and a Warning event.
func refused(err error, retry time.Duration) (Outcome, bool) {
	var refusal *manifests.RefusalError
	if !errors.As(err, &refusal) || refusal.Reason == "" {
		return Outcome{}, false
	}
	return Outcome{Reason: refusal.Reason, Message: err.Error(), Requeue: retry, Stalled: true, Warning: true}, true
}
