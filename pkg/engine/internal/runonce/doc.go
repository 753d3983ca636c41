// Package runonce says how an object that runs to completion ended: a
// batch Job (a Helm hook, a migration), which a pass creates at most once
// per render, or a test.
//
// RunsOnce names the kinds that run once. EndStates is a cache transform's
// memory of the last state the informers saw of each such object, a
// deletion's final state included, kept for EndStateMemory; EndOf,
// EndCondition, Ended and OwnEndState judge a run-once object by that state
// (complete, failed, deleted before it finished, or gone unseen, which
// counts as done, as Helm counts a deleted hook).
//
// The engine decides when to create, wait for and judge such objects
// (runonce.go, testrun.go); this package holds what those decisions read.
package runonce
