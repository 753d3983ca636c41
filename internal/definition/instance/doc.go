// Package instance is an instance of a kind a ComponentDefinition defines,
// as the component reconciler sees it: a Go type (Instance) whose spec is
// free-form and whose status is a Component's with the revision it runs.
// Bound to a revision (Bind), it stands for the Component that revision
// makes of it — the revision's source, pinned; its spec mapped to values;
// the definition's instance settings — so that every setting a Component
// has reaches the reconciler the same way, and Generator renders it with
// the Components' resolver.
package instance
