// Package pool is one controller — one queue and one set of workers — that
// the reconcilers of several kinds share, each in a lane of its own.
//
// # Why
//
// A controller of controller-runtime has its queue (with a priority queue,
// five goroutines and a B-tree), its workers (one goroutine each, whose
// stacks grow with a reconcile's depth) and its metrics. A process that
// serves many kinds, such as the reference operator serving the kinds of
// its ComponentDefinitions, paid all of that once a kind: 50 kinds kept 400
// workers waiting on 50 queues. In a pool, the kinds share the workers,
// and the process works on as many components at once as one controller
// does, whatever the number of kinds.
//
// # Lanes
//
// A lane is a reconciler and its sources (the handlers on its components'
// informer, its channels). Its sources enqueue into the pool's queue
// through the lane's view of it, which adds the lane's name to each
// request, priorities and rate limits included; the pool hands each
// request to its lane's reconciler, with the lane's logger and timeout. A
// request is never worked on by two workers at once, as in a controller of
// its own.
//
// # Stopping a lane
//
// A lane runs while the context its Start was given lives. When it ends,
// the lane leaves the pool: its reconciles in progress are canceled and
// waited for, and the requests it left in the queue are dropped when a
// worker takes them. The pool and the other lanes go on.
//
// # What a lane gives up
//
// The pool's queue, rate limiter and number of workers are the pool's:
// a lane has no MaxConcurrentReconciles or RateLimiter of its own. The
// pool takes requests in the order they come (by priority, with the
// priority queue), whatever their lane, as one controller takes those of
// its components.
package pool
