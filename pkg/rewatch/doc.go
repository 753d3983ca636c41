// Package rewatch keeps an informer watching across an API server's restart:
// what it missed meanwhile reaches its handlers within about a second of the
// server's return, however often the server went away before.
//
// # Why
//
// client-go's reflector, which fills an informer, waits between two tries
// of its list and watch with an exponential backoff (0.8 s doubled per try,
// up to 30 s, with up to as much again of jitter) that only starts over two
// minutes after it last did. After kube-apiserver restarts, every reflector
// tries at least twice: its watch is refused while the server is away, and
// the new server's watch cache, started afresh, answers the old resource
// version "too old" (410), which makes the reflector list again after its
// next wait. A few restarts, cuts or etcd stalls within two minutes grow
// that wait to 30–60 s, during which the informer sees nothing and a
// controller acts on no change. The server also asks clients to wait
// (Retry-After) while a resource's watch cache initializes, up to 30 s as
// its downtime grows, and client-go sleeps that long inside the request.
// Neither wait can be set through a SharedIndexInformer.
//
// # How
//
// Wrap puts a ListerWatcher between the reflector and the API server that
// never lets the reflector see the server's absence:
//
//   - A list or watch that the server did not answer (a refused or reset
//     connection, a 429, 503 or 504) is tried again after 100 ms, doubling
//     to at most 1 s, until it is answered or the informer stops; the
//     request returns only then. A watch that ends before its time (the
//     server went away) is opened again, inside the watch the reflector
//     holds, from the last resource version it delivered.
//   - A watch the server answers "too old" is relisted in place: the
//     wrapper lists, compares the list with the informer's store, and
//     delivers the difference as events (added, modified, deleted) and a
//     bookmark at the list's resource version, then watches on from it. The
//     reflector's watch never ends, so its backoff never grows, and handlers
//     see only what changed, not an update of every object.
//   - Config marks the wrapper's requests so that they return a 429 or 503
//     at once rather than after the server's Retry-After: the wrapper's own
//     pace (at most 1 s) decides when to ask again.
//
// Informers gives the NewInformer of a controller-runtime cache.Options
// that wraps every informer the cache makes.
//
// # What it tells
//
// Metrics on controller-runtime's registry, by cluster (a rest.Config's
// Host) and resource (Kind.group): wavekit_watch_last_event_timestamp_seconds
// (when a watch last delivered an event or bookmark), wavekit_watch_reconnect_seconds
// (how long a watch took to deliver again after it was lost, by how:
// resumed, or relisted in place), wavekit_watch_last_reconnect_seconds (how
// long the last of those took), wavekit_watches_lost (watches lost now
// and not back) and wavekit_cached_objects (what the informers' stores
// hold, counted at each scrape). Lost lists them; Ready is a healthz checker that fails
// while a watch of a cluster is lost.
package rewatch
