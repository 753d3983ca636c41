// Package external manages a component's dependents outside Kubernetes —
// a database and its role, a bucket, a DNS record — in the same waves as its
// objects, as the Java Operator SDK's external dependent resources do.
//
// # Rendering
//
// A render names an external dependent beside its objects, as an object of
// apiVersion external.wavekit.dev/v1 whose kind names a Provider (see
// Object and New). Its annotations are an object's: apply-order,
// delete-order, reconcile-policy (once, or the default: update on change),
// delete-policy (delete, orphan, orphan-on-apply, orphan-on-delete). Split
// takes the dependents out of the render; the engine never applies them.
//
// # Providers
//
// A Provider is the user's code for one kind: Observe, Create, Update,
// Delete (see provider.go); a Matcher compares desired and observed where
// plain equality of the two Specs is wrong. pkg/external/postgres is one,
// for PostgreSQL roles and databases. Credentials of the external API come
// from a Secret the dependent names (credentialsFrom); what the resource's
// users need (a generated password) goes into a Secret of the component
// (SecretSpec), written before the resource is created, never into status,
// Events or logs.
//
// # Waves
//
// engine.Owner.Externals hands a Pass to an engine pass: an apply wave's
// dependents are applied one after the other, in render order, before the
// wave's objects, which wait until they are ready; a delete wave's are
// deleted after the wave's objects are gone; those that left the render are
// pruned after the objects.
//
// # Tracking
//
// The component's status.externals records each dependent before it is
// created (Pass.Record, saved with the inventory's write ahead) and its ID
// as soon as Create returns. A crash between Create and the status write
// loses neither: the next pass observes by Key, the stable name derived from
// the component (see Key), finds what was made and records its ID, so no
// second one is made. The status holds IDs and Secret names, no secrets:
// it is where kubectl, the CLI and every viewer already look.
//
// # Polling
//
// A Poller observes every applied dependent at its pollInterval (with
// jitter, a back-off on errors, and at most Options.MaxConcurrentPolls at
// once). A poll costs no Kubernetes request; one that finds the resource
// changed or gone, or an error that starts or ends, enqueues the component,
// whose pass corrects it (drift mode Correct) or reports it (Warn). A pass
// takes what a poll saw within the poll interval instead of observing
// again, so a pass with nothing to change makes no call either.
package external
