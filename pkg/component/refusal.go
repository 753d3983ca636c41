package component

import (
	"errors"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// refused turns a manifests.RefusalError into its outcome: Ready False with
// the error's own reason, Stalled (only a change helps), looked at again
// at the retry interval, and a Warning event.
func (p *pass[T]) refused(err error) (outcome, bool) {
	var refusal *manifests.RefusalError
	if !errors.As(err, &refusal) || refusal.Reason == "" {
		return outcome{}, false
	}
	return outcome{reason: refusal.Reason, message: err.Error(), requeue: p.settings.retry, stalled: true, warning: true}, true
}
