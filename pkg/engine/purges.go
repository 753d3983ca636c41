package engine

import (
	"time"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/expiry"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// purgeMemoryTTL is how long the applier remembers a purge: long enough for
// the status write that records it to land and the cache to show it, or
// for the next pass to record it again.
const purgeMemoryTTL = 10 * time.Minute

// purges remembers the objects this applier purged and the digest each was
// rendered at, so that a pass whose inventory lacks the purge (a status
// write whose answer was lost, a status the cache has not caught up with)
// does not create a purged object again at the same render: a Helm hook
// with hook-succeeded would run a second time.
type purges struct {
	digest *expiry.Map[manifests.ObjectKey, string]
}

func newPurges(now func() time.Time) *purges {
	return &purges{digest: expiry.New[manifests.ObjectKey, string](purgeMemoryTTL, now)}
}

// record notes that the object of key, rendered at digest, is purged.
func (p *purges) record(key manifests.ObjectKey, digest string) {
	p.digest.Put(key, digest)
}

// purgedAt tells whether the object of key was purged at digest, within
// purgeMemoryTTL.
func (p *purges) purgedAt(key manifests.ObjectKey, digest string) bool {
	purged, ok := p.digest.Get(key)
	return ok && purged == digest
}
