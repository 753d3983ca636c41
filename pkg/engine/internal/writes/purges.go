package writes

import (
	"time"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/expiry"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// purgeMemoryTTL is how long the applier remembers a purge: long enough for
// the status write that records it to land and the cache to show it, or
// for the next pass to record it again.
const purgeMemoryTTL = 10 * time.Minute

// Purges remembers the objects this applier purged and the digest each was
// rendered at, so that a pass whose inventory lacks the purge (a status
// write whose answer was lost, a status the cache has not caught up with)
// does not create a purged object again at the same render: a Helm hook
// with hook-succeeded would run a second time.
type Purges struct {
	digest *expiry.Map[manifests.ObjectKey, string]
}

func NewPurges(now func() time.Time) *Purges {
	return &Purges{digest: expiry.New[manifests.ObjectKey, string](purgeMemoryTTL, now)}
}

// Record notes that the object of key, rendered at digest, is purged.
func (p *Purges) Record(key manifests.ObjectKey, digest string) {
	p.digest.Put(key, digest)
}

// PurgedAt tells whether the object of key was purged at digest, within
// purgeMemoryTTL.
func (p *Purges) PurgedAt(key manifests.ObjectKey, digest string) bool {
	purged, ok := p.digest.Get(key)
	return ok && purged == digest
}
