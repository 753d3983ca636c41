// Package shard splits the components of one type among operator
// processes, as Flux shards its controllers: each shard selects its
// components by the label "<operator>/shard" (Selector; the empty key takes
// those without it), labels the objects it applies with it (Labels), and
// its manager's cache holds only its own components (CacheFor). Outside
// gives the selectors of every component a shard leaves out, which the
// dependency tracker watches for the dependents in other shards.
package shard
