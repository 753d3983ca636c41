// Package connections shares the connections to target clusters between
// the Reconcilers of one process.
//
// # What a connection is
//
// A connection is an engine.CachedTarget: an HTTP client, a REST mapper
// and an informer cache of the objects with one operator's owner label, for
// one cluster and identity. Each costs its watches, its cached objects and
// a few MiB of client state; an operator serving fifty defined kinds would
// otherwise hold fifty of each for the same cluster.
//
// # Sharing
//
// A Pool hands out one connection per Key: the manager's config,
// the target (kubeconfig, impersonated identity, scope) and everything the
// cache is made from (operator name, field owner, take-over managers,
// selected labels, namespaces). Reconcilers whose keys are equal share it;
// each keeps its own applier, event handlers and waits on top of it.
//
// # Event handlers
//
// Handlers share one event handler on each informer of a connection
// between the Reconcilers that watch its kind there, each a member of it,
// called in turn from the informer's one listener: a handler on an
// informer is two goroutines and a 16 KiB buffer. A member that joins late
// is told of what the informer holds, as the informer would tell a handler
// added late; the last member to leave takes the handler off the informer.
// A member must not block: a Reconciler's handler gives up its send once
// nothing takes its events any more.
//
// # Lifetime
//
// Acquire connects on first use, in the background, and waits for the
// connection or its failure; a failed connection leaves the pool at once,
// so the next Acquire connects anew. The release function Acquire returns
// gives the connection back; the last release stops it.
package connections
