package notify

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Why a delivery was not made; the reason label of the metrics.
const (
	// reasonDuplicate: the receiver got an event of the same key within
	// the deduplication window.
	reasonDuplicate = "duplicate"
	// reasonRateLimited: the receiver's token bucket was empty.
	reasonRateLimited = "rate_limited"
	// reasonQueueFull: the intake queue or the receiver's queue was full.
	reasonQueueFull = "queue_full"
	// reasonTooManyReceivers: as many receivers have queues as allowed.
	reasonTooManyReceivers = "too_many_receivers"
	// reasonRetriesExhausted: every try failed.
	reasonRetriesExhausted = "retries_exhausted"
	// reasonRejected: the receiver refused the event, or it cannot be
	// sent at all (a Permanent error).
	reasonRejected = "rejected"
	// reasonRouteFailed: the router could not say where the event goes.
	reasonRouteFailed = "route_failed"
)

// maxRemembered bounds the keys the deduplication remembers; past it the
// expired ones go, and if none has expired, all go (an alert sent twice
// rather than memory without bound).
const maxRemembered = 10000

// limiter decides whether an event goes to a receiver now: not when the
// receiver had one of the same key within window (deduplication, as Flux's
// rate limit), nor when the receiver's token bucket is empty (burst
// events at once, then one per refill), so that a flood of distinct
// failures gives a bounded number of messages too.
type limiter struct {
	mu      sync.Mutex
	now     func() time.Time
	window  time.Duration
	burst   int
	refill  time.Duration
	sent    map[string]time.Time // receiver and event key → end of its window
	buckets map[string]*rate.Limiter
}

func newLimiter(now func() time.Time, window time.Duration, burst int, refill time.Duration) *limiter {
	return &limiter{now: now, window: window, burst: burst, refill: refill,
		sent: map[string]time.Time{}, buckets: map[string]*rate.Limiter{}}
}

// admit says why the event of key may not go to receiver now, or "" when
// it may; an admitted event starts its deduplication window. A duplicate
// takes no token.
func (l *limiter) admit(receiver, key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	id := receiver + "\x00" + key
	if until, seen := l.sent[id]; seen && now.Before(until) {
		return reasonDuplicate
	}
	if !l.bucket(receiver).AllowN(now, 1) {
		return reasonRateLimited
	}
	if len(l.sent) >= maxRemembered {
		l.sweep(now)
	}
	l.sent[id] = now.Add(l.window)
	return ""
}

// bucket is the receiver's token bucket (burst tokens, one more per
// refill); none limits when burst is 0.
func (l *limiter) bucket(receiver string) *rate.Limiter {
	b := l.buckets[receiver]
	if b == nil {
		if len(l.buckets) >= maxRemembered {
			l.sweep(l.now())
		}
		limit := rate.Inf
		if l.burst > 0 && l.refill > 0 {
			limit = rate.Every(l.refill)
		}
		b = rate.NewLimiter(limit, l.burst)
		l.buckets[receiver] = b
	}
	return b
}

// sweep forgets the expired windows and the full buckets (a full bucket is
// what a new one would be), and everything when nothing expired.
func (l *limiter) sweep(now time.Time) {
	for id, until := range l.sent {
		if !now.Before(until) {
			delete(l.sent, id)
		}
	}
	if len(l.sent) >= maxRemembered {
		clear(l.sent)
	}
	for receiver, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, receiver)
		}
	}
}
