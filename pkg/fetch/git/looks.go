package git

import (
	"context"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// maxRemembered bounds how many remotes' last looks are kept.
const maxRemembered = 4096

// failedLookTTL is how long a look that failed serves other requests: the
// retries of many consumers share it, and a consumer that retries later
// looks again, whatever the age it accepts of a look that succeeded.
const failedLookTTL = 10 * time.Second

// lookKey is what shares a look at a remote: its URL and who reaches it.
type lookKey struct{ url, identity string }

func (k lookKey) String() string { return k.identity + "\x00" + k.url }

// look is the last look at one remote, and who used it.
type look struct {
	refs refs
	err  error
	// at is when the look started: it saw nothing newer than that.
	at time.Time
	// ok is true once a look succeeded: refs holds the last one that did,
	// which a later one is compared with.
	ok        bool
	consumers map[string]consumer
}

type consumer struct {
	seen   time.Time
	maxAge time.Duration
}

// looks shares the looks at remotes: one at a time per remote and
// identity, and each one serves every request that accepts its age. A
// look that failed is shared as one that succeeded.
type looks struct {
	now     func() time.Time
	flights singleflight.Group
	// changed is told the consumers of a remote whose refs moved.
	changed func(consumers []string)

	mu     sync.Mutex
	byKey  map[lookKey]*look
	counts func() // counts a look at a remote
}

func newLooks(changed func([]string), counted func()) *looks {
	return &looks{now: time.Now, changed: changed, byKey: map[lookKey]*look{}, counts: counted}
}

// get returns the refs of key's remote as a look no older than maxAge saw
// them, looking (with do) when the last look is older. consumer, if not
// empty, is remembered as a user of the remote.
func (l *looks) get(ctx context.Context, key lookKey, maxAge time.Duration, who string, do func(context.Context) (refs, error)) (refs, error) {
	notBefore := l.now().Add(-maxAge)
	for range 2 {
		if r, err, fresh := l.fresh(key, notBefore, who, maxAge); fresh {
			return r, err
		}
		_, _, _ = l.flights.Do(key.String(), func() (any, error) {
			if _, _, fresh := l.fresh(key, notBefore, "", 0); fresh {
				return nil, nil // another flight just looked
			}
			at := l.now()
			l.counts()
			r, err := do(ctx)
			l.record(key, at, r, err)
			return nil, nil
		})
		// A flight this caller joined may have started before notBefore:
		// the loop then starts one of its own.
	}
	r, err, _ := l.fresh(key, time.Time{}, who, maxAge)
	return r, err
}

// fresh returns the last look at key if it started at or after notBefore,
// and remembers who as a consumer.
func (l *looks) fresh(key lookKey, notBefore time.Time, who string, maxAge time.Duration) (refs, error, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lk, ok := l.byKey[key]
	if !ok {
		return refs{}, nil, false
	}
	if who != "" {
		lk.consumers[who] = consumer{seen: l.now(), maxAge: maxAge}
	}
	if lk.at.Before(notBefore) {
		return refs{}, nil, false
	}
	if lk.err != nil {
		if lk.at.Before(l.now().Add(-failedLookTTL)) && !notBefore.IsZero() {
			return refs{}, nil, false
		}
		return refs{}, lk.err, true
	}
	return lk.refs, nil, true
}

// record keeps a look's outcome and tells the other consumers when the
// refs moved since the last look that succeeded.
func (l *looks) record(key lookKey, at time.Time, r refs, err error) {
	l.mu.Lock()
	lk, ok := l.byKey[key]
	if !ok {
		l.evict()
		lk = &look{consumers: map[string]consumer{}}
		l.byKey[key] = lk
	}
	moved := err == nil && lk.ok && !lk.refs.same(r)
	lk.at, lk.err = at, err
	if err == nil {
		lk.refs, lk.ok = r, true
	}
	var tell []string
	now := l.now()
	for who, c := range lk.consumers {
		if now.Sub(c.seen) > 2*c.maxAge+time.Minute {
			delete(lk.consumers, who) // gone, or no longer using it
			continue
		}
		if moved {
			tell = append(tell, who)
		}
	}
	l.mu.Unlock()
	if len(tell) > 0 && l.changed != nil {
		slices.Sort(tell)
		l.changed(tell)
	}
}

// evict drops the oldest look once maxRemembered are kept. The caller
// holds l.mu.
func (l *looks) evict() {
	if len(l.byKey) < maxRemembered {
		return
	}
	var oldest lookKey
	var at time.Time
	for k, lk := range l.byKey {
		if at.IsZero() || lk.at.Before(at) {
			oldest, at = k, lk.at
		}
	}
	delete(l.byKey, oldest)
}
