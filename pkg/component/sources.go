package component

import (
	"context"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// The sources of a reconciler's controller cost goroutines and buffers for
// the reconciler's life, which a process serving many kinds (package
// dynamic) pays once a kind: each handler on an informer is a listener of
// two goroutines and a ring buffer of 16 KiB, each channel source two
// goroutines and a buffer. So the reconciler has one handler on its
// components' informer, which does what the controller's For, the status
// tracker, the dependencies and WithComponentHandler each did with a
// handler of their own, and one goroutine that takes its channels' events
// to the queue.

// queue is the controller's queue, as handlers see it.
type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

// componentHandlers are what the events of the reconciler's components go
// through: the status tracker first (a reconcile the event starts reads the
// cache it caught up with), then the enqueue that For did (with its
// predicates), then the dependencies and the handlers added with
// WithComponentHandler.
func (r *Reconciler[T]) componentHandlers() fanOut {
	handlers := fanOut{
		{handler: r.statusCaughtUp()},
		{handler: &handler.EnqueueRequestForObject{}, predicates: []predicate.Predicate{r.componentEvents()}},
	}
	if r.deps.Enabled() {
		handlers = append(handlers, filtered{handler: r.deps.Events()})
	}
	for _, h := range r.componentEventHandlers {
		handlers = append(handlers, filtered{handler: h})
	}
	return handlers
}

// filtered is a handler and the predicates an event must pass to reach it.
type filtered struct {
	handler    handler.EventHandler
	predicates []predicate.Predicate
}

// fanOut is one event handler that calls several, in order, each with the
// events its predicates let through.
type fanOut []filtered

// Create calls each handler whose predicates pass e.
func (f fanOut) Create(ctx context.Context, e event.CreateEvent, q queue) {
	for _, h := range f {
		if passes(h.predicates, func(p predicate.Predicate) bool { return p.Create(e) }) {
			h.handler.Create(ctx, e, q)
		}
	}
}

// Update calls each handler whose predicates pass e.
func (f fanOut) Update(ctx context.Context, e event.UpdateEvent, q queue) {
	for _, h := range f {
		if passes(h.predicates, func(p predicate.Predicate) bool { return p.Update(e) }) {
			h.handler.Update(ctx, e, q)
		}
	}
}

// Delete calls each handler whose predicates pass e.
func (f fanOut) Delete(ctx context.Context, e event.DeleteEvent, q queue) {
	for _, h := range f {
		if passes(h.predicates, func(p predicate.Predicate) bool { return p.Delete(e) }) {
			h.handler.Delete(ctx, e, q)
		}
	}
}

// Generic calls each handler whose predicates pass e.
func (f fanOut) Generic(ctx context.Context, e event.GenericEvent, q queue) {
	for _, h := range f {
		if passes(h.predicates, func(p predicate.Predicate) bool { return p.Generic(e) }) {
			h.handler.Generic(ctx, e, q)
		}
	}
}

// passes tells whether every one of predicates lets the event through.
func passes(predicates []predicate.Predicate, lets func(predicate.Predicate) bool) bool {
	for _, p := range predicates {
		if !lets(p) {
			return false
		}
	}
	return true
}

// channelSource takes the events of the reconciler's channels to the
// queue, with one goroutine for both: an event of r.events as a change,
// one of r.resyncs behind every change (behindChanges).
func (r *core) channelSource() source.Source {
	return source.Func(func(ctx context.Context, q queue) error {
		go r.forward(ctx, q)
		return nil
	})
}

// forward adds each event of the reconciler's channels to q until ctx
// ends.
func (r *core) forward(ctx context.Context, q queue) {
	defer r.closeForwards.Do(func() { close(r.forwarded) })
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-r.events:
			q.Add(requestOf(e))
		case e := <-r.resyncs:
			behindChanges(q, requestOf(e))
		}
	}
}

// requestOf is the request of the component of a generic event.
func requestOf(e event.GenericEvent) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: e.Object.GetNamespace(), Name: e.Object.GetName()}}
}

// behindChanges enqueues req with controller-runtime's LowPriority, as the
// initial list of components is: a change of another component goes first
// (with the priority queue; in arrival order without it).
func behindChanges(q queue, req reconcile.Request) {
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(handler.LowPriority)}, req)
		return
	}
	q.Add(req)
}

// componentLogs is the logger of the controller of the components of kind
// gvk, named name, as controller-runtime's builder makes it for For: the
// controller's name, group and kind, and each request's component.
func componentLogs(base logr.Logger, name string, gvk schema.GroupVersionKind) func(*reconcile.Request) logr.Logger {
	log := base.WithValues("controller", name, "controllerGroup", gvk.Group, "controllerKind", gvk.Kind)
	return func(req *reconcile.Request) logr.Logger {
		if req == nil {
			return log
		}
		return log.WithValues(gvk.Kind, klog.KRef(req.Namespace, req.Name), "namespace", req.Namespace, "name", req.Name)
	}
}
