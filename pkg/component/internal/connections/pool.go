package connections

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// Key names one shared connection.
type Key struct {
	// Local is the manager's config. Its scheme is not part of the key:
	// the served kinds' reconcilers each see the manager's scheme with
	// their own kind added, which they do not apply to targets. The
	// connection decodes with the scheme of the Reconciler that made it.
	Local *rest.Config
	// Target names the cluster and identity within Local (kubeconfig
	// digest, impersonated user and groups, scope).
	Target string
	// Cache names what the cache is made from (Fingerprint).
	Cache string
}

// Fingerprint names the options a cache is made from: what may differ
// between the Reconcilers sharing it must not be in there.
func Fingerprint(opts engine.CachedTargetOptions) string {
	return fmt.Sprintf("%q %q %q %v %q %q %s", opts.Name, opts.FieldOwner, opts.TakeOver, opts.TakeOver == nil,
		labels.Set(opts.Labels).String(), opts.Namespaces, opts.StartTimeout)
}

// Connect makes a connection; it runs until ctx ends.
type Connect func(ctx context.Context) (*engine.CachedTarget, error)

// Pool holds the connections of one process.
type Pool struct {
	mu       sync.Mutex
	byKey    map[Key]*connection
	handlers *Handlers
}

// connection is one shared CachedTarget. Until ready is closed it is
// connecting; then either err or target is set.
type connection struct {
	target *engine.CachedTarget
	err    error
	ready  chan struct{}
	cancel context.CancelFunc
	users  int
}

// Shared is the pool of the process.
var Shared = New()

// New returns an empty pool.
func New() *Pool {
	return &Pool{byKey: map[Key]*connection{}, handlers: NewHandlers()}
}

// Handlers are the event handlers the pool's users share on the informers
// of its connections.
func (p *Pool) Handlers() *Handlers { return p.handlers }

// Acquire returns the connection of key, connecting it with connect if the
// pool has none, and a function that gives it back (call it once the
// caller stops using it, also after an error). It waits until the
// connection is made or failed, or ctx ends.
func (p *Pool) Acquire(ctx context.Context, key Key, connect Connect) (*engine.CachedTarget, func(), error) {
	p.mu.Lock()
	c, ok := p.byKey[key]
	if !ok {
		c = p.startLocked(key, connect)
	}
	c.users++
	p.mu.Unlock()
	release := sync.OnceFunc(func() { p.release(key, c) })
	select {
	case <-c.ready:
	case <-ctx.Done():
		release()
		return nil, func() {}, fmt.Errorf("waiting for the connection: %w", context.Cause(ctx))
	}
	if c.err != nil {
		release()
		return nil, func() {}, c.err
	}
	return c.target, release, nil
}

// startLocked registers a connection of key and connects it in the
// background; a failure removes it from the pool.
func (p *Pool) startLocked(key Key, connect Connect) *connection {
	ctx, cancel := context.WithCancel(context.Background())
	c := &connection{ready: make(chan struct{}), cancel: cancel}
	p.byKey[key] = c
	go func() {
		defer close(c.ready)
		c.target, c.err = connect(ctx)
		if c.err != nil {
			p.mu.Lock()
			p.dropLocked(key, c)
			p.mu.Unlock()
		}
	}()
	return c
}

// release gives c back; the last user stops it.
func (p *Pool) release(key Key, c *connection) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.users--
	if c.users == 0 {
		p.dropLocked(key, c)
	}
}

// dropLocked stops c and forgets it, unless the pool holds another
// connection of key by now.
func (p *Pool) dropLocked(key Key, c *connection) {
	c.cancel()
	if p.byKey[key] == c {
		delete(p.byKey, key)
	}
}
