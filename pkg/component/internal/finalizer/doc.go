// Package finalizer holds a component until its deletion is over: the
// reconciler's finalizer, added on the first pass and removed once every
// object is gone (or left: OrphansOnDelete), each time in a merge patch of
// metadata.finalizers alone, with the finalizer earlier versions set (the
// bare operator name) moved to the new one.
package finalizer
