// Package definition is the reference operator's controller of
// ComponentDefinitions: for each one it resolves the source (with the
// Components' resolver: allow-lists, signatures), makes its schema a CRD's
// (package crdschema), keeps every change as an immutable, numbered
// ComponentDefinitionRevision — refusing one whose schema would make an
// existing instance invalid, naming it, unless the definition accepts that
// revision by its number — writes the kind's CRD and its view and edit
// ClusterRoles (package crdgen), refusing a kind that clashes with a CRD it
// did not write, and serves the kind at once (package
// pkg/component/dynamic): every instance is reconciled by a
// component.Reconciler as the Component it stands for (package instance),
// at the revision the rollout gives it (package rollout). The rollout moves
// instances to a new revision in waves and halts, with an alert, at the
// first instance that fails there. A definition is not deleted while
// instances of its kind exist; once they are gone, the kind stops being
// served and its CRD, roles and revisions go.
//
// Kinds (kinds.go) keeps what is served; Setup registers the controller,
// and, on a shard other than the main one, only what serves the kinds
// (ServeOnly): one process writes definitions, every shard reconciles its
// own instances.
package definition
