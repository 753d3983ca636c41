// Package api holds the words of the engine's results, which package
// engine gives its users under the same names: what a pass does to an
// object (Action, ObjectAction, worded by Action.Past as Events say it), the
// kinds of its plan's groups (PlanGroupKind), where it stopped (Stop), what
// it did and found (Result, Waiting, Blocker, Drift), and how a step fails
// (ObjectError, MissingNamespaceError, ImmutableFieldError; NeedsChange
// tells the errors only a change fixes). They are values: nothing here
// reads a cluster.
package api
