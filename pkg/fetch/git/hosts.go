package git

import (
	"context"
	"fmt"
	"sync"
)

// hostLimits bounds the looks and fetches under way at once per host, so
// that many repositories of one host (or many Components) never flood it.
type hostLimits struct {
	perHost int

	mu    sync.Mutex
	slots map[string]chan struct{}
}

func newHostLimits(perHost int) *hostLimits {
	return &hostLimits{perHost: perHost, slots: map[string]chan struct{}{}}
}

// acquire waits for a slot of host, or for ctx to end; release gives it
// back.
func (h *hostLimits) acquire(ctx context.Context, host string) (release func(), err error) {
	h.mu.Lock()
	slot, ok := h.slots[host]
	if !ok {
		slot = make(chan struct{}, h.perHost)
		h.slots[host] = slot
	}
	h.mu.Unlock()
	select {
	case slot <- struct{}{}:
		return func() { <-slot }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for one of the %d connections to %s: %w", h.perHost, host, ctx.Err())
	}
}
