package engine

import (
	"sync"
	"time"

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
	now func() time.Time

	mu     sync.Mutex
	digest map[manifests.ObjectKey]purge
}

type purge struct {
	digest string
	at     time.Time
}

func newPurges(now func() time.Time) *purges {
	return &purges{now: now, digest: map[manifests.ObjectKey]purge{}}
}

// record notes that the object of key, rendered at digest, is purged, and
// forgets the purges older than purgeMemoryTTL.
func (p *purges) record(key manifests.ObjectKey, digest string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for k, old := range p.digest {
		if now.Sub(old.at) > purgeMemoryTTL {
			delete(p.digest, k)
		}
	}
	p.digest[key] = purge{digest: digest, at: now}
}

// purgedAt tells whether the object of key was purged at digest.
func (p *purges) purgedAt(key manifests.ObjectKey, digest string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	old, ok := p.digest[key]
	return ok && old.digest == digest && p.now().Sub(old.at) <= purgeMemoryTTL
}
