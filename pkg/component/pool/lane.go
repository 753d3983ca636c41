package pool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// LaneOptions configure a lane.
type LaneOptions struct {
	// Sources enqueue the lane's requests, as a controller's sources would.
	Sources []source.Source
	// Log is the logger of a request of the lane, as a controller's
	// LogConstructor (default: the pool's, with the lane's name).
	Log func(*reconcile.Request) logr.Logger
	// Timeout bounds each reconcile of the lane (default none), as a
	// controller's ReconciliationTimeout.
	Timeout time.Duration
	// CacheSyncTimeout bounds the wait for the sources' caches to sync as
	// the lane starts (default 2 minutes, as a controller's).
	CacheSyncTimeout time.Duration
}

// Lane is a reconciler and its sources in a pool: a runnable that joins
// the pool when it starts and leaves it when its context ends.
type Lane struct {
	pool       *Pool
	name       string
	reconciler reconcile.Reconciler
	sources    []source.Source
	log        func(*reconcile.Request) logr.Logger
	timeout    time.Duration
	syncWait   time.Duration

	mu       sync.Mutex
	ctx      context.Context // Start's, once it joined
	stopping bool
	inflight sync.WaitGroup
}

// Lane returns the lane name of the pool, for r: a runnable to start as a
// controller would be (with the manager, or on its own).
func (p *Pool) Lane(name string, r reconcile.Reconciler, opts LaneOptions) *Lane {
	if opts.CacheSyncTimeout <= 0 {
		opts.CacheSyncTimeout = 2 * time.Minute
	}
	return &Lane{pool: p, name: name, reconciler: r, sources: opts.Sources, log: opts.Log, timeout: opts.Timeout, syncWait: opts.CacheSyncTimeout}
}

// NeedLeaderElection is true: a lane reconciles, as a controller does.
func (l *Lane) NeedLeaderElection() bool { return true }

// Start waits for the pool's queue, joins the pool, starts the lane's
// sources and waits for their caches, then runs until ctx ends. It then
// leaves the pool and waits for the lane's reconciles in progress, which
// ctx's end cancels.
func (l *Lane) Start(ctx context.Context) error {
	if !l.pool.started(ctx) {
		return nil
	}
	l.mu.Lock()
	l.ctx = ctx
	l.mu.Unlock()
	if err := l.pool.join(l); err != nil {
		return err
	}
	defer l.stop()
	q := laneQueueOf(l.name, l.pool.queue)
	for _, src := range l.sources {
		if err := src.Start(ctx, q); err != nil {
			return fmt.Errorf("the lane %s of the pool %s: starting a source: %w", l.name, l.pool.name, err)
		}
	}
	if err := l.waitForSync(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// waitForSync waits for the caches of the sources that have one, as a
// controller does before its workers start.
func (l *Lane) waitForSync(ctx context.Context) error {
	syncCtx, cancel := context.WithTimeout(ctx, l.syncWait)
	defer cancel()
	for _, src := range l.sources {
		syncing, ok := src.(source.SyncingSource)
		if !ok {
			continue
		}
		if err := syncing.WaitForSync(syncCtx); err != nil {
			if ctx.Err() != nil {
				return nil // stopping
			}
			return fmt.Errorf("the lane %s of the pool %s: waiting for its caches: %w", l.name, l.pool.name, err)
		}
	}
	return nil
}

// stop takes the lane out of the pool and waits for its reconciles.
func (l *Lane) stop() {
	l.pool.leave(l)
	l.mu.Lock()
	l.stopping = true
	l.mu.Unlock()
	l.inflight.Wait()
}

// begin starts a reconcile of the lane: ctx, canceled when the lane stops
// and bounded by its timeout, and what ends it. false: the lane stops.
func (l *Lane) begin(ctx context.Context) (context.Context, func(), bool) {
	l.mu.Lock()
	if l.stopping || l.ctx == nil {
		l.mu.Unlock()
		return ctx, nil, false
	}
	l.inflight.Add(1)
	laneCtx := l.ctx
	l.mu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	stopWatching := context.AfterFunc(laneCtx, func() { cancel(context.Cause(laneCtx)) })
	cancelTimeout := context.CancelFunc(func() {})
	if l.timeout > 0 {
		ctx, cancelTimeout = context.WithTimeout(ctx, l.timeout)
	}
	return ctx, func() {
		cancelTimeout()
		stopWatching()
		cancel(errors.New("the reconcile ended"))
		l.inflight.Done()
	}, true
}
