// Package spansink is an OTLP/HTTP trace collector for tests: an operator
// started with --otlp-endpoint at its URL sends it a trace of every
// Reconcile, which it keeps as text (to search, as logs are searched, for
// values that must not be there) and as spans (to count them).
package spansink
