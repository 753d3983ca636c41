// Package report records the outcome of a Reconcile, as the reconciler
// tells it: the component's status, written at most once per Reconcile (at
// its end, Recorder.Finish, or ahead of the new objects of its pass,
// Recorder.WriteAhead), the Events (one per kind of write, one per new
// outcome), the log line, and what ReconcilerOptions.Notifier is told.
//
// It also holds what the reconciler remembers between Reconciles of what it
// wrote and said (Reporter): each component's status as last written, until
// the cache shows it (Written), the components whose finalizer it removed,
// the status fields the component's CRD drops (Pruned: a CRD older than the
// framework) and the last Event of each component (Notes), so that the same
// outcome is not told twice.
//
// A status the API server refuses — too large to store, or invalid for a
// CRD out of date — is reported in its stead, with the inventory as last
// stored.
package report
