package component

import (
	"sync"
	"time"
)

// stuckGrace is how long a reconcile may outlive its timeout (the context
// deadline ends its requests) before the operator counts as not ready.
const stuckGrace = 10 * time.Second

// inflight records when each running reconcile started.
type inflight struct {
	mu      sync.Mutex
	next    uint64
	started map[uint64]time.Time
}

func newInflight() *inflight { return &inflight{started: map[uint64]time.Time{}} }

func (f *inflight) begin() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	f.started[f.next] = time.Now()
	return f.next
}

func (f *inflight) end(id uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.started, id)
}

// longest returns how long the oldest running reconcile has been running.
func (f *inflight) longest() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var longest time.Duration
	for _, at := range f.started {
		longest = max(longest, time.Since(at))
	}
	return longest
}
