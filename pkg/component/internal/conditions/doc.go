// Package conditions writes the conditions of a component's Status: Ready
// with the state it implies and kstatus's Reconciling and Stalled beside it
// (SetReady), TestSuccess (SetTest), SourceVerified (SetSourceVerified) and,
// in drift mode Warn, Drifted (SetDrifted). Every message is bounded to
// what the API server stores (package bound), and a transition time
// changes only when a condition's status does, so a pass that finds the
// same situation writes the same status.
package conditions
