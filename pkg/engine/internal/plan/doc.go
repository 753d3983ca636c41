// Package plan is the engine's pure half: what a pass of Apply or Delete
// will do, decided from the rendered objects, the inventory and, for one
// object, what was read of it, without any request of its own.
//
// # Prepare
//
// Preparer (prepare.go) validates the rendered objects (names, kinds,
// scopes, annotations, orders, duplicates), normalises them as the API
// server stores them and computes their digests: each becomes a Desired.
// SortForApply puts them in apply order. Its only reads are the REST
// mapper's.
//
// # Plan
//
// Apply and Deletion (plan.go) turn the sorted objects and the inventory
// into a Plan: groups of steps (apply, unchanged, ready, purge, prune,
// delete, orphan, run-hook, run-test), with a group for the external
// dependents' waves where the owner has some (WithExternals). Plans are
// table-tested without an API server.
//
// # Decide
//
// Decide (decide.go) is the write decision of one object: create, update,
// replace, keep or refuse, and why. The plan asks it before any read
// (SettledByRecord), the engine's apply step and its Diff with what they
// read of the live object.
//
// # Settle
//
// A step does not write into the inventory: it returns an Outcome
// (outcome.go), and Settle applies a group's outcomes to the inventory in
// plan order, so a pass's actions are reported in plan order however its
// writes interleave.
//
// The package imports nothing of package engine: the engine runs what it
// plans, with its caches, clients and trackers.
package plan
