// Package catchup tells when a controller that has just started (or just
// became its shard's leader) has looked at every object it found at its
// start.
//
// # Why
//
// A controller's status is only as fresh as its last look. After a restart
// or a leader handover, a Component still reads Ready from the last pass of
// the replica before, although one of its objects may have been deleted
// while no replica was looking: only the first pass of the new leader can
// tell. Whoever waits for "everything is Ready" (a rollout script, a
// robustness test, an operator's owner after an upgrade) needs to know when
// the statuses are fresh again.
//
// # How
//
// A Tracker is given the keys listed at the start (Expect) and is told of
// every object looked at (Seen); Seen before Expect counts too. Once each
// expected key was seen, Done is closed, the gauge
// wavekit_catchup_pending{controller} is 0 and one log line says how many
// objects were looked at and how long it took. After that the Tracker
// keeps nothing.
package catchup
