// Package handover lets pkg/component hand the engine the objects of one
// Apply: objects it decoded for that call alone and does not read after
// it. The engine then prepares them in place, where it copies a caller's
// objects before it changes them (a sixth of what a no-op pass of the
// reconciler allocated). It is internal to pkg/: a framework user's objects
// are always copied.
package handover
