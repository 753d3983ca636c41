package external

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Poller observes the external dependents that passes applied, each at
// its own interval (with jitter, and a back-off on errors), at most
// MaxConcurrentPolls at once. A poll calls only the Provider: one that
// finds what the last pass or poll saw costs no Kubernetes request and
// wakes nobody; a change, the resource gone or an error coming or going
// calls notify with the component, whose next pass corrects or reports it.
type Poller struct {
	opts   Options
	notify func(types.NamespacedName)
	slots  chan struct{}
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	entries map[pollKey]*pollEntry

	polls atomic.Int64
}

// pollTimeout bounds one poll: a provider that does not answer frees its
// slot and counts as an error.
const pollTimeout = 30 * time.Second

// pollKey names one dependent of one component.
type pollKey struct {
	component  types.NamespacedName
	kind, name string
}

// pollEntry is what the poller knows of one dependent.
type pollEntry struct {
	provider Provider
	req      Request
	interval time.Duration
	// seen is the fingerprint of the last observation, at is when it was
	// made, obs the observation itself (nil: not found).
	seen   string
	at     time.Time
	obs    *Observation
	failed bool
	stop   context.CancelFunc
}

func newPoller(opts Options, notify func(types.NamespacedName)) *Poller {
	ctx, cancel := context.WithCancel(context.Background())
	if notify == nil {
		notify = func(types.NamespacedName) {}
	}
	return &Poller{
		opts: opts, notify: notify, slots: make(chan struct{}, opts.MaxConcurrentPolls),
		ctx: ctx, cancel: cancel, entries: map[pollKey]*pollEntry{},
	}
}

// Polls returns how many polls were made so far.
func (p *Poller) Polls() int64 { return p.polls.Load() }

// Watching returns how many dependents are polled.
func (p *Poller) Watching() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.entries)
}

// track starts or refreshes the polls of one dependent with what a pass
// just saw of it (obs, nil when it is not there).
func (p *Poller) track(key pollKey, provider Provider, req Request, interval time.Duration, obs *Observation) {
	if interval <= 0 {
		interval = p.opts.PollInterval
	}
	req.Secret = nil // a poll observes; it needs no generated values
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[key]
	if !ok {
		e = &pollEntry{}
		p.entries[key] = e
	}
	e.provider, e.req, e.interval = provider, req, interval
	e.seen, e.at, e.obs, e.failed = fingerprint(obs), time.Now(), obs, false
	if e.stop == nil {
		ctx, stop := context.WithCancel(p.ctx)
		e.stop = stop
		go p.loop(ctx, key)
	}
}

// observed returns what the last pass or poll saw of a dependent, if it
// saw it within the dependent's interval with ID id.
func (p *Poller) observed(key pollKey, id string) (*Observation, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[key]
	if !ok || e.failed || e.obs == nil || e.obs.ID != id || time.Since(e.at) > e.interval {
		return nil, false
	}
	obs := *e.obs
	return &obs, true
}

// credentials returns the credentials the polls of key use.
func (p *Poller) credentials(key pollKey) map[string][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[key]; ok {
		return e.req.Credentials
	}
	return nil
}

// keep stops the polls of component's dependents other than those listed.
func (p *Poller) keep(component types.NamespacedName, kept []pollKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, e := range p.entries {
		if key.component == component && !containsKey(kept, key) {
			e.stop()
			delete(p.entries, key)
		}
	}
}

func containsKey(keys []pollKey, key pollKey) bool {
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

// stop ends every poll.
func (p *Poller) stop() { p.cancel() }

// loop polls one dependent until its entry is stopped.
func (p *Poller) loop(ctx context.Context, key pollKey) {
	failures := 0
	for {
		wait, ok := p.wait(key, failures)
		if !ok {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if p.poll(ctx, key) {
			failures = 0
		} else {
			failures++
		}
	}
}

// wait is how long before the next poll of key: its interval with jitter,
// doubled for each failure in a row, up to ten intervals.
func (p *Poller) wait(key pollKey, failures int) (time.Duration, bool) {
	p.mu.Lock()
	e, ok := p.entries[key]
	var interval time.Duration
	if ok {
		interval = e.interval
	}
	p.mu.Unlock()
	if !ok {
		return 0, false
	}
	d := interval
	for i := 0; i < failures && d < 10*interval; i++ {
		d *= 2
	}
	d = min(d, 10*interval)
	spread := (rand.Float64()*2 - 1) * p.opts.Jitter
	return time.Duration(float64(d) * (1 + spread)), true
}

// poll observes one dependent, records what it saw and notifies the
// component when that differs from what was seen before; it reports
// whether the observation succeeded.
func (p *Poller) poll(ctx context.Context, key pollKey) bool {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return true
	}
	defer func() { <-p.slots }()
	p.mu.Lock()
	e, ok := p.entries[key]
	var provider Provider
	var req Request
	if ok {
		provider, req = e.provider, e.req
	}
	p.mu.Unlock()
	if !ok {
		return true
	}
	p.polls.Add(1)
	observeCtx, cancel := context.WithTimeout(ctx, pollTimeout)
	obs, err := provider.Observe(observeCtx, req)
	cancel()
	if ctx.Err() != nil {
		return true
	}
	changed := p.record(key, obs, err)
	if changed {
		p.notify(key.component)
	}
	return err == nil
}

// record keeps what a poll saw and tells whether it differs from what was
// seen before (an error counts once, when it starts and when it ends).
func (p *Poller) record(key pollKey, obs *Observation, err error) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[key]
	if !ok {
		return false
	}
	if err != nil {
		changed := !e.failed
		e.failed = true
		return changed
	}
	seen := fingerprint(obs)
	changed := e.failed || seen != e.seen
	e.seen, e.at, e.obs, e.failed = seen, time.Now(), obs, false
	return changed
}

// fingerprint is what a comparison of two observations looks at.
func fingerprint(obs *Observation) string {
	if obs == nil {
		return "absent"
	}
	raw, _ := json.Marshal(obs)
	return string(raw)
}
