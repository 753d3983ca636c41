// Package spans starts and ends the spans of wavekit's packages (the
// Reconcile's, the engine's, the fetcher's) the same way: a span is a child
// of the span in the context, from that span's TracerProvider, and when the
// span in the context records nothing (tracing off, or a trace not sampled)
// no span starts and nothing is allocated. It imports only the OpenTelemetry
// API, not its SDK (package tracing builds providers).
package spans
