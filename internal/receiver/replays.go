package receiver

import (
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// Bounds of the memory of deliveries: how long a delivery is remembered,
// and how many are at most (the oldest are forgotten first).
const (
	replayWindow     = time.Hour
	replayMaxEntries = 16384
)

// replays remembers the deliveries this process handled, for replayWindow,
// so that the same one is not acted on twice. Each replica remembers its
// own.
type replays struct {
	mu   sync.Mutex
	seen *expirable.LRU[string, struct{}]
}

func newReplays() *replays {
	return &replays{seen: expirable.NewLRU[string, struct{}](replayMaxEntries, nil, replayWindow)}
}

// reserve records the keys of a delivery unless one of them is recorded
// already, and tells whether it recorded them: at once, so that two copies
// of one delivery that arrive together are acted on once.
func (r *replays) reserve(keys []string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range keys {
		if r.seen.Contains(k) {
			return false
		}
	}
	for _, k := range keys {
		r.seen.Add(k, struct{}{})
	}
	return true
}

// release forgets the keys of a delivery that failed, so that the sender's
// retry is acted on.
func (r *replays) release(keys []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range keys {
		r.seen.Remove(k)
	}
}
