// Package writes is what the applier remembers of its own writes between
// passes: which watch events its writes cause, told from the changes others
// make, holding those that come before a write's answer (Own); which
// objects it purged at which render, so that an inventory that lost the
// record of a purge never runs an object twice (Purges); and how often it
// corrected an object at one render, pausing one that something changes
// back after every write (Loops, LoopError).
package writes
