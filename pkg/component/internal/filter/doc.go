// Package filter decides which events of a component are worth a
// Reconcile: its creation and deletion, a change of its spec, the start of
// its deletion (and annotation edits while it waits), a new value of the
// annotations that request a pass (reconcile-requested-at, force), and a
// change of labels that moves it into or out of this shard. Status writes
// and other metadata edits are not.
package filter
