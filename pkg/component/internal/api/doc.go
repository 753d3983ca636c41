// Package api declares the types a component type implements and embeds:
// Component and its optional *Configuration interfaces, the Status every
// component's status embeds (conditions, state, inventory, attempts and
// history) and the reasons its conditions and Events give. Package
// component re-exports every one of them under the same name, and users
// import them from there; the reconciler's own packages, which package
// component builds on, import them from here.
//
// The types hold data and the few methods users call (Status.IsInstalled,
// Status.ReadyCondition); what the reconciler decides from them lives in
// the packages that decide it (conditions, attempts).
package api
