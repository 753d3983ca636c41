// Package dependencies keeps what the components of one type depend on
// (DependencyConfiguration) and answers the reconciler's questions about
// it: is a dependency Ready at its current generation (NotReady), is there
// a cycle (Path), which components depend on this one (DependentsOf). The
// component events keep its index (Events), not a field index of the
// manager's cache, and it enqueues the components a change of another
// concerns. A shard, whose cache holds only its own components, finds its
// dependents in other shards through informers of their dependencies only
// (WatchOutside), or a list of those until they have synced.
package dependencies
