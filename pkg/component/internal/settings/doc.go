// Package settings resolves, once per Reconcile, what a component's
// optional configurations say — the api *Configuration interfaces its type
// or its spec implements (the component is asked first) — with the
// reconciler's Defaults for what they leave out. The rest of the Reconcile
// reads the Settings and asks the component for none of its interfaces
// again.
package settings
