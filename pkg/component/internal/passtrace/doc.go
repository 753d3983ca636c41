// Package passtrace traces a Reconcile: its root span, linked to the span
// of the Reconcile before it when that one left work (a wave waiting, a
// write ahead), so that a rollout can be followed from its first pass to
// Ready; its children read, render and write status (Span); and the trace
// ID that the status, the logger and Warning Events carry (TraceID). The
// engine's spans (plan, waves, Jobs, tests) are children of these, from the
// same provider. With tracing off a Tracer is nil and each call checks
// span.IsRecording() on the context's span, allocating nothing.
package passtrace
