// Package engine applies a component's rendered objects to a cluster and
// deletes them again, in waves: the one engine behind the operator's
// reconciler and the CLI's apply, diff and delete. The contract it reads
// (annotations, policies, inventory items) is package manifests.
//
// # Flow
//
// A pass goes begin → plan → execute → settle → result:
//
//   - begin (begin.go) is the front half Apply, Preview and Diff share:
//     prepareFor, the one preparation of every kind of pass (apply, delete
//     hooks, tests), compiles the owner's ignore rules and health checks and
//     has internal/plan's Preparer validate the rendered objects (names,
//     kinds, scopes, annotations, orders, duplicates) and compute their
//     digests; namespaces.go adds the namespaces they need, and the pass
//     (pass.go) starts with an item for each. A pass works through an
//     ownerScope (ownerscope.go): the owner-scoped operations over the
//     Applier's shared caches (held as a field, not embedded: an ownerScope
//     method takes an owner, an Applier method does not), which it changes
//     only through its writeTracker; Preview's and Diff's scope is built on
//     a dry-run client, and its tracker only reads. Nothing is written when
//     an object is invalid (a manifests.UserError).
//   - internal/plan orders the pass: plan.Apply and plan.Deletion turn the
//     objects and the inventory into groups of steps (apply, unchanged,
//     ready, purge, prune, delete, orphan, run-hook, run-test: the Action
//     constants), a pure function with table tests; internal/kinds holds
//     the kind stages.
//   - execute.go runs the groups, the steps of a group concurrently (bounded
//     by Options.Concurrency, forEach), and stops at a group that is
//     not ready or not gone yet. plan.Decide is the write decision
//     the plan, Apply and Diff share, a pure function: create, update,
//     replace, keep or refuse, and why; write.go and deleteobject.go do the
//     writes, internal/readiness reads kstatus and status hints, deletehooks.go
//     runs delete hooks.
//     runonce.go creates a Job at most once per render and judges one that
//     is gone by what internal/runonce saw of it (the cache's transform
//     keeps the last state of every Job and test, a deletion's final one
//     included; Test judges a test that is gone by it too).
//     internal/live reads the API server's answer to a delete, so an object
//     removed at once is gone in the same pass.
//   - settle: steps return outcomes (plan.Outcome) instead of writing the
//     inventory, and plan.Settle applies a group's outcomes in plan order,
//     so Result.Actions is in plan order.
//   - result (pass.go): the Result says where the pass stopped (Stop,
//     internal/api). The caller persists Result.Inventory (a status, a Secret)
//     and runs the next pass on an event or later.
//
// # Entry points
//
// Applier.Apply runs one apply pass; Applier.Delete one deletion pass, with
// delete hooks (DeleteOptions); Applier.Diff the apply pass as a server-side
// dry run. Each returns a Result: the inventory, whether it is done, what it
// waits for (Waiting) and what foreign instances keep (Blocker).
// CheckForApply (order.go) runs Apply's validation and sort alone, without
// an API server if need be (OfflineRESTMapper, internal/kinds): the CLI's render.
//
// # Targets and caches
//
// Target is a cluster: a client and a reader of live objects. NewCachedTarget
// builds one whose reads come from informers filtered by the owner label
// (internal/live starts a kind's informer on its first read and waits
// for its list), so a pass that changes nothing makes no request; internal/drift
// notices changes made out of band.
//
// # Errors
//
// Errors a user causes are types: manifests.UserError, manifests.AnnotationError,
// MissingNamespaceError, ImmutableFieldError. NeedsChange tells a caller not
// to retry them with backoff. A failed step of a pass is an ObjectError
// (internal/api) naming the object; NeedsChange sees through it.
package engine
