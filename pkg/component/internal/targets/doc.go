// Package targets holds the clusters and identities a Reconciler's
// components write to.
//
// # Targets
//
// A Set keeps one Target per kubeconfig Secret (by digest), impersonated
// identity and scope, shared by the components of one Reconciler that use
// it. For connects a component's target on first use, in the background:
// a target still connecting after a second is a retriable error, so that a
// slow or dead cluster never holds a worker. A target outlives its last
// component by a minute (a component deleted and created again finds its
// informers warm).
//
// # What a target is made of
//
// Each Target embeds the engine.CachedTarget of its connection, which
// package connections shares with the process's other Reconcilers, and
// has an Applier of its own. It records the event handlers its Reconciler
// adds to the shared informers (IsWatched, MarkWatched), and removes them
// when it stops, and the owners objects were taken over from. Its
// ObjectWatches watch, one object each, what components wait for
// (ObjectDependency).
//
// # Clusters that do not answer
//
// A connection that fails because its cluster did not answer, or that has
// been connecting for ten seconds, is an UnreachableError, and its key is
// remembered as down, so that the next try gives the worker back at once.
// IsUnreachable tells such errors, and a request's that did not reach the
// target, from answers. HostOf and ConfigOf give the host and config of a
// component's target, for the wait for an API server that is away.
//
// # What it does not do
//
// It neither plans nor writes: the Reconciler's pass does, through the
// target's Applier, and the Reconciler's event handlers decide which
// component an event concerns.
package targets
