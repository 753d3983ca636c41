package pool

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Request is a request of the pool's queue: a lane's request, and the
// lane's name.
type Request struct {
	Lane string
	reconcile.Request
}

// Options configure a pool.
type Options struct {
	// Workers is how many requests the pool works on at once, whatever
	// their lane (default 1).
	Workers int
	// UsePriorityQueue gives the pool controller-runtime's priority queue,
	// as a manager's Controller.UsePriorityQueue does for its controllers
	// (default true, as controller-runtime's).
	UsePriorityQueue *bool
	// Logger is the logger of the pool and, with each lane's values, of
	// its requests.
	Logger logr.Logger
}

// Pool is one controller that lanes share (see the package's doc). Run it
// with Start, as a runnable of the manager (it needs leader election, as a
// controller does).
type Pool struct {
	name       string
	controller controller.TypedController[Request]
	ready      chan struct{} // closed once queue is set
	queue      workqueue.TypedRateLimitingInterface[Request]

	mu    sync.RWMutex
	lanes map[string]*Lane
}

// New returns a pool named name (its controller's name, in logs and
// metrics), not yet started.
func New(name string, opts Options) (*Pool, error) {
	p := &Pool{name: name, ready: make(chan struct{}), lanes: map[string]*Lane{}}
	c, err := controller.NewTypedUnmanaged(name, controller.TypedOptions[Request]{
		Reconciler:              p,
		MaxConcurrentReconciles: opts.Workers,
		SkipNameValidation:      ptr.To(true), // the pool is named as the controller of its operator's own kind
		UsePriorityQueue:        opts.UsePriorityQueue,
		Logger:                  opts.Logger,
		LogConstructor:          p.logFor(opts.Logger.WithValues("controller", name)),
		NewQueue:                p.newQueue(opts),
	})
	if err != nil {
		return nil, fmt.Errorf("the pool %s: %w", name, err)
	}
	p.controller = c
	return p, nil
}

// Start runs the pool's workers until ctx ends.
func (p *Pool) Start(ctx context.Context) error { return p.controller.Start(ctx) }

// NeedLeaderElection is true: the pool reconciles, as a controller does.
func (p *Pool) NeedLeaderElection() bool { return true }

// newQueue makes the queue the controller's would be, and keeps it for
// the lanes' sources.
func (p *Pool) newQueue(opts Options) func(string, workqueue.TypedRateLimiter[Request]) workqueue.TypedRateLimitingInterface[Request] {
	return func(name string, limiter workqueue.TypedRateLimiter[Request]) workqueue.TypedRateLimitingInterface[Request] {
		var q workqueue.TypedRateLimitingInterface[Request]
		if ptr.Deref(opts.UsePriorityQueue, true) {
			q = newPriorityQueue(name, limiter, opts.Logger)
		} else {
			q = workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[Request]{Name: name})
		}
		p.queue = q
		close(p.ready)
		return q
	}
}

// started waits until the pool's queue exists: false if ctx ended first.
func (p *Pool) started(ctx context.Context) bool {
	select {
	case <-p.ready:
		return true
	case <-ctx.Done():
		return false
	}
}

// logFor is the logger of a request: the pool's, with the values its lane
// adds.
func (p *Pool) logFor(base logr.Logger) func(*Request) logr.Logger {
	return func(req *Request) logr.Logger {
		if req == nil {
			return base
		}
		if l := p.lane(req.Lane); l != nil && l.log != nil {
			return l.log(&req.Request)
		}
		return base.WithValues("lane", req.Lane, "namespace", req.Namespace, "name", req.Name)
	}
}

// Reconcile hands req to its lane's reconciler, with the lane's timeout,
// canceled when the lane stops. A request of a lane no longer in the pool
// is dropped.
func (p *Pool) Reconcile(ctx context.Context, req Request) (reconcile.Result, error) {
	l := p.lane(req.Lane)
	if l == nil {
		return reconcile.Result{}, nil
	}
	ctx, done, ok := l.begin(ctx)
	if !ok {
		return reconcile.Result{}, nil
	}
	defer done()
	return l.reconciler.Reconcile(ctx, req.Request)
}

func (p *Pool) lane(name string) *Lane {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.lanes[name]
}

func (p *Pool) join(l *Lane) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, taken := p.lanes[l.name]; taken {
		return fmt.Errorf("the pool %s has a lane %s already", p.name, l.name)
	}
	p.lanes[l.name] = l
	return nil
}

func (p *Pool) leave(l *Lane) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lanes[l.name] == l {
		delete(p.lanes, l.name)
	}
}
