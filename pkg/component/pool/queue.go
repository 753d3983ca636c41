package pool

import (
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// newPriorityQueue is controller-runtime's priority queue, as a controller
// of a manager with UsePriorityQueue makes it.
func newPriorityQueue(name string, limiter workqueue.TypedRateLimiter[Request], log logr.Logger) workqueue.TypedRateLimitingInterface[Request] {
	return priorityqueue.New(name, func(o *priorityqueue.Opts[Request]) {
		o.Log = log.WithValues("controller", name)
		o.RateLimiter = limiter
	})
}

// laneQueue is the pool's queue as a lane's sources see it: what they add
// is the lane's. Sources only add; a lane never takes from the queue or
// shuts it down.
type laneQueue struct {
	lane string
	q    workqueue.TypedRateLimitingInterface[Request]
}

// laneQueueOf is the view of q for the lane: one that takes priorities
// when q does.
func laneQueueOf(lane string, q workqueue.TypedRateLimitingInterface[Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	lq := laneQueue{lane: lane, q: q}
	if pq, ok := q.(priorityqueue.PriorityQueue[Request]); ok {
		return lanePriorityQueue{laneQueue: lq, pq: pq}
	}
	return lq
}

func (l laneQueue) of(r reconcile.Request) Request { return Request{Lane: l.lane, Request: r} }

func (l laneQueue) Add(r reconcile.Request)                       { l.q.Add(l.of(r)) }
func (l laneQueue) AddAfter(r reconcile.Request, d time.Duration) { l.q.AddAfter(l.of(r), d) }
func (l laneQueue) AddRateLimited(r reconcile.Request)            { l.q.AddRateLimited(l.of(r)) }
func (l laneQueue) Forget(r reconcile.Request)                    { l.q.Forget(l.of(r)) }
func (l laneQueue) NumRequeues(r reconcile.Request) int           { return l.q.NumRequeues(l.of(r)) }
func (l laneQueue) Done(r reconcile.Request)                      { l.q.Done(l.of(r)) }
func (l laneQueue) Len() int                                      { return l.q.Len() }
func (l laneQueue) ShuttingDown() bool                            { return l.q.ShuttingDown() }
func (laneQueue) ShutDown()                                       {}
func (laneQueue) ShutDownWithDrain()                              {}
func (laneQueue) Get() (reconcile.Request, bool)                  { return reconcile.Request{}, true }

// lanePriorityQueue is laneQueue of a priority queue.
type lanePriorityQueue struct {
	laneQueue
	pq priorityqueue.PriorityQueue[Request]
}

func (l lanePriorityQueue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	mapped := make([]Request, len(items))
	for i, r := range items {
		mapped[i] = l.of(r)
	}
	l.pq.AddWithOpts(o, mapped...)
}

func (lanePriorityQueue) GetWithPriority() (reconcile.Request, int, bool) {
	return reconcile.Request{}, 0, true
}
