package git

import (
	"context"
	"fmt"
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

// consumer is who asks for a remote's refs (a Component), how old a look
// it accepts, and which references its ref depends on.
type consumer struct {
	name   string
	maxAge time.Duration
	watch  watch
	seen   time.Time
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

// get returns the refs of key's remote as a look no older than who.maxAge
// saw them, looking (with do) when the last look is older. who, if named,
// is remembered as a user of the remote. do runs apart from ctx, which
// ends only this caller's wait: the look serves the others who wait for
// it, and do bounds its own time.
func (l *looks) get(ctx context.Context, key lookKey, who consumer, do func() (refs, error)) (refs, error) {
	notBefore := l.now().Add(-who.maxAge)
	for range 2 {
		if r, err, fresh := l.fresh(key, notBefore, who); fresh {
			return r, err
		}
		done := l.flights.DoChan(key.String(), func() (any, error) {
			if _, _, fresh := l.fresh(key, notBefore, consumer{}); fresh {
				return nil, nil // another flight just looked
			}
			at := l.now()
			l.counts()
			r, err := do()
			l.record(key, at, who.name, r, err)
			return nil, nil
		})
		select {
		case <-done:
		case <-ctx.Done():
			return refs{}, fmt.Errorf("waiting for a look at %s: %w", redactURL(key.url), ctx.Err())
		}
		// A flight this caller joined may have started before notBefore:
		// the loop then starts one of its own.
	}
	r, err, _ := l.fresh(key, time.Time{}, who)
	return r, err
}

// fresh returns the last look at key if it started at or after notBefore,
// and remembers who as a consumer.
func (l *looks) fresh(key lookKey, notBefore time.Time, who consumer) (refs, error, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lk, ok := l.byKey[key]
	if !ok {
		return refs{}, nil, false
	}
	if who.name != "" {
		who.seen = l.now()
		lk.consumers[who.name] = who
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

// record keeps a look's outcome and tells the other consumers whose
// references moved since the last look that succeeded (not by, who
// looked: it sees the move itself).
func (l *looks) record(key lookKey, at time.Time, by string, r refs, err error) {
	l.mu.Lock()
	lk, ok := l.byKey[key]
	if !ok {
		l.evict()
		lk = &look{consumers: map[string]consumer{}}
		l.byKey[key] = lk
	}
	before, compare := lk.refs, err == nil && lk.ok
	lk.at, lk.err = at, err
	if err == nil {
		lk.refs, lk.ok = r, true
	}
	var tell []string
	now := l.now()
	for name, c := range lk.consumers {
		if now.Sub(c.seen) > 2*c.maxAge+time.Minute {
			delete(lk.consumers, name) // gone, or no longer using it
			continue
		}
		if compare && name != by && c.watch.moved(before, r) {
			tell = append(tell, name)
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
