// Package attempts decides the course of a component's attempts at its
// renders, from the status alone: which attempt a render is (a new
// generation, render or reconcile request starts one), how a try ended,
// when a failed one is tried again (Remediation.Retries, at the retry
// interval, each with a timeout of its own), and, once the retries are used
// up, whether to roll back to the last Ready render (strategy Rollback). It
// records each attempt's end in Status.History (history.go: equal outcomes
// merged, HistoryLimit kept). A Policy's methods do no I/O and read no
// clock: the pass does what they decide.
package attempts
