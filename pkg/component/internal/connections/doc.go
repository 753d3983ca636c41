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
// # Lifetime
//
// Acquire connects on first use, in the background, and waits for the
// connection or its failure; a failed connection leaves the pool at once,
// so the next Acquire connects anew. The release function Acquire returns
// gives the connection back; the last release stops it.
package connections
