// Package fleet is the controller of the reference operator's ComponentSet:
// it makes one Component per selected cluster Secret of the set's namespace,
// owned by the set, and writes a new template to those Components in
// cluster waves, the next wave only once every Component of the earlier
// ones is Ready at its new generation.
//
// Planning is pure (plan.go: clusters, Components and the set in, writes
// and status out); reconcile.go reads and writes. A cluster that leaves, or
// every cluster when the set is deleted, goes through departure.go: its
// Component is deleted, with the set's copy of the cluster's kubeconfig
// (copies.go) when its Secret went first, or released with what is left on
// the cluster recorded (left.go) when it cannot be cleaned. What the
// controller does not know it does not act on: a cluster list that cannot
// be read, or an unreachable cluster, never deletes anything (DESIGN.md,
// invariant 18). A reconcile request on the set (its annotation
// <operator>/reconcile-requested-at) is passed on to the clusters'
// Components (requests.go).
//
// When it has a notifier (pkg/notify), notify.go tells it what a written
// status says that the one before did not: waves done, the rollout held at
// a failed cluster, more clusters that do not answer.
package fleet
