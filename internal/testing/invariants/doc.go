// Package invariants judges a recorded history (package history) of an
// operator at work against the invariants of DESIGN.md that a history can
// show broken: the inventory is written before an object is created, waves
// go in order, hook Jobs run once per attempt in order, objects of others
// stay untouched, nothing is written while idle, and no Secret's value
// reaches a log, an Event, a status or a database's log. Each check returns
// the violations it finds, each saying what happened where, so that a soak
// prints them with its seed and trace.
//
// The checks give the benefit of the doubt where the history cannot tell:
// a write is the operator's unless the test recorded it as its own, an
// object listed after a gap was written at an unknown time, and a stretch
// a watch may have missed (a Gap) judges nothing.
package invariants
