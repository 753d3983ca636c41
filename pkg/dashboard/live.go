package dashboard

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// broker tells the open pages of every change, by namespace.
type broker struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
	// seq counts the changes; last is the seq of each namespace's newest
	// change, so that a page opened before a change it has not seen (its
	// stream connects after the page was built) is told at once.
	seq  uint64
	last map[string]uint64
}

// subscriber is one open page: it is woken (at most one pending wake) by
// a change, and takes the namespaces that changed since.
type subscriber struct {
	mu      sync.Mutex
	changed map[string]struct{}
	wake    chan struct{}
}

// take returns the namespaces that changed since the last take.
func (s *subscriber) take() map[string]struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := s.changed
	s.changed = map[string]struct{}{}
	return changed
}

func newBroker() *broker { return &broker{subs: map[*subscriber]struct{}{}, last: map[string]uint64{}} }

// now is the seq of the newest change, which a page built now has seen.
func (b *broker) now() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq
}

// changedSince returns the namespaces changed after seq.
func (b *broker) changedSince(seq uint64) map[string]struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	changed := map[string]struct{}{}
	for namespace, last := range b.last {
		if last > seq {
			changed[namespace] = struct{}{}
		}
	}
	return changed
}

func (b *broker) subscribe() *subscriber {
	s := &subscriber{changed: map[string]struct{}{}, wake: make(chan struct{}, 1)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

func (b *broker) unsubscribe(s *subscriber) {
	b.mu.Lock()
	delete(b.subs, s)
	b.mu.Unlock()
}

// publish tells every subscriber of a change in namespace; it never blocks
// (it runs in the informers' goroutine), and never asks who may see what.
func (b *broker) publish(namespace string) {
	b.mu.Lock()
	b.seq++
	b.last[namespace] = b.seq
	subs := make([]*subscriber, 0, len(b.subs))
	for s := range b.subs {
		subs = append(subs, s)
	}
	b.mu.Unlock()
	for _, s := range subs {
		s.mu.Lock()
		s.changed[namespace] = struct{}{}
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// Timing of the live stream: changes are sent at most every liveInterval
// (well within the 2 s a change should take to show), a comment keeps the
// connection open every liveKeepAlive, and a stream ends after liveLifetime
// (the browser reconnects by itself).
const (
	liveInterval  = 300 * time.Millisecond
	liveKeepAlive = 15 * time.Second
	liveLifetime  = 10 * time.Minute
	liveWrite     = 10 * time.Second
)

// serveLive streams an event "change" whenever something the viewer may
// see changed (in the namespace ?namespace= only, if given). It carries no
// data: the page fetches itself again.
func (h *Handler) serveLive(w http.ResponseWriter, r *http.Request, v *viewer) {
	only := r.URL.Query().Get("namespace")
	wants := func(namespace string) bool {
		if only != "" && namespace != only {
			return false
		}
		for _, kind := range h.componentKinds() {
			if v.mayList(r.Context(), kind, namespace) {
				return true
			}
		}
		for _, set := range h.sets {
			if v.mayList(r.Context(), set.kindInfo, namespace) {
				return true
			}
		}
		return false
	}
	// The memo of the request would keep answers for the stream's whole
	// life; the Authorizer's own cache expires them.
	v.memo, v.noMemo = nil, true
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	sub := h.live.subscribe()
	defer h.live.unsubscribe(sub)
	send := func(line string) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(liveWrite))
		if _, err := fmt.Fprint(w, line); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send(": live\n\n") {
		return
	}
	if since, err := strconv.ParseUint(r.URL.Query().Get("since"), 10, 64); err == nil && wantsAny(h.live.changedSince(since), wants) {
		if !send("event: change\ndata: 1\n\n") {
			return
		}
	}
	h.stream(r, sub, wants, send)
}

// wantsAny tells whether the viewer wants one of the namespaces.
func wantsAny(namespaces map[string]struct{}, wants func(string) bool) bool {
	for namespace := range namespaces {
		if wants(namespace) {
			return true
		}
	}
	return false
}

// stream sends changes until the request ends or its lifetime is over.
func (h *Handler) stream(r *http.Request, sub *subscriber, wants func(string) bool, send func(string) bool) {
	end := time.NewTimer(liveLifetime)
	defer end.Stop()
	keepAlive := time.NewTicker(liveKeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-end.C:
			return
		case <-keepAlive.C:
			if !send(": keep-alive\n\n") {
				return
			}
		case <-sub.wake:
			if !wantsAny(sub.take(), wants) {
				continue
			}
			if !send("event: change\ndata: 1\n\n") {
				return
			}
			select {
			case <-time.After(liveInterval):
			case <-r.Context().Done():
				return
			}
		}
	}
}
