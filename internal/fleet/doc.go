// Package fleet is the controller of the reference operator's ComponentSet:
// it makes one Component per selected cluster Secret of the set's namespace,
// owned by the set, and writes a new template to those Components in
// cluster waves, the next wave only once every Component of the earlier
// ones is Ready at its new generation.
//
// Planning is pure (plan.go: clusters, Components and the set in, writes
// and status out); reconcile.go reads and writes. What the controller does
// not know it does not act on: a cluster list that cannot be read, or an
// unreachable cluster, never deletes anything (DESIGN.md, invariant 18).
package fleet
