// Package component turns a custom resource type into a component operator:
// the Component interface, the Status every component embeds, and the
// controller-runtime reconciler.
//
// # Reconciling
//
// NewReconciler[T] renders a component with its Generator and applies the
// objects with the engine (pkg/engine) in waves; SetupWithManager registers
// it. ReconcilerOptions tune it; every field has a default.
//
// # One Reconcile, step by step
//
// Each Reconcile is one engine pass at most, and writes the component's
// status at most once, at its end. Three types share the work: the pass
// (pass: the render and the engine pass), the status recorder
// (internal/report: the one status write, the Events and the alerts) and
// the settings (internal/settings: what the component's optional
// *Configuration interfaces say, resolved once); internal/attempts decides,
// from the status alone, the course of the attempts at a render. The files
// and packages named are where each step lives:
//
//  1. Read (reconcile.go): the component from the cache, or the newer status
//     this reconciler wrote last (report.Written); a component whose
//     finalizer is gone ends here. A status recorder and a pass are made;
//     the post-read hooks run, then settings.Resolve reads the optional
//     configurations.
//  2. Apply or delete (apply.go, delete.go): with a deletion timestamp the
//     component's objects are deleted in delete waves (foreign instances of
//     its CRDs block it); otherwise the finalizer is ensured
//     (internal/finalizer), a suspended component or one waiting on
//     dependsOn or on an object stops here (waits.go), the target is
//     connected (internal/targets: its cache, or a remote cluster's), and the
//     digest of the render's inputs is taken (render.go,
//     keptrender.Inputs): while it stays the same, the pass applies the
//     current render again (keptrenders.go, internal/keptrender: kept in
//     memory and in a Secret); when it changes, the generator renders anew
//     (render.go).
//  3. The attempt (internal/attempts decides, attemptpass.go does): a new
//     render starts an attempt; a failed one is retried or rolled back to
//     the last Ready render, as spec.remediation says; chart tests run once
//     the render is Ready (tests.go).
//  4. One engine pass (engine.Applier.Apply or Delete): plan, waves,
//     readiness, drift (report.Recorder.ReportDrift). New inventory items
//     are written ahead of their objects (report.Recorder.WriteAhead), and
//     the Reconcile ends there: the next one creates them. Dependents
//     outside Kubernetes go in the same waves (externals.go).
//  5. Outcome (internal/outcome): what the pass or its error means for the
//     conditions, the state, the requeue.
//  6. Finish (internal/report): the status is written if it changed, one
//     Event says what happened, the Notifier is told what is news, and the
//     Reconcile's span ends (internal/passtrace).
//
// # When a component renders
//
// A pass renders only when the digest of the render's inputs changes: the
// component's UID, generation, spec and placement, install or upgrade, its
// force annotation, and what the generator declares with
// manifests.InputsDeclarer (or, for one that declares nothing, the
// operator's executable). A reconcile-requested-at annotation asks for a
// pass, not a render: a request whose inputs are unchanged applies the
// current render. Otherwise it applies the current render again,
// from memory or from the Secret <name>.<kind>.current-render that keeps it
// (read once after a restart), so random and generated output stays as
// first rendered and drift is corrected against it. The kept render is
// sealed with a key of the operator's own Secret (ReconcilerOptions.RenderKey,
// package internal/keptrender); one that cannot be opened renders once
// more, and says why. The operator needs get, create and update on Secrets
// for these Secrets; without them the render is kept in memory only, and
// the Ready message says so.
//
// # Dependencies
//
// A component type that implements DependencyConfiguration names the
// components it depends on: it is applied only once each is Ready at its
// current generation (state Pending until then), and none of them is deleted
// while it exists (DeletionPending). Cycles are reported, not waited on.
//
// # Sources and extra watches
//
// A generator that fetches its source reports it (manifests.ReportSource);
// the reconciler records it as status.source once the objects are applied.
// WithWatch reconciles components on events of other objects they read;
// Enqueue (or EnqueueWithin, which gives up when its context ends) does
// the same from an informer added while running. WithComponentHandler is
// told of every event of the components themselves, from the one handler
// the reconciler has on their informer.
//
// # Alerts
//
// ReconcilerOptions.Notifier (a pkg/notify Sink, nil by default) is told
// what happens (internal/report): after the status write, what the Ready
// condition comes to say that it did not say before — Ready after anything
// else or at a new generation or source revision, a failure or stall, a
// rollback, a blocked deletion — and, during a
// pass, drift corrected or reported, and a wave that has waited longer than
// WaveHeldAfter (once per wave and attempt). A pass that fails as the last
// one did tells nothing, nor does a restart. Events carry the trace ID of
// the Reconcile and the revision being rendered. Off, it costs nothing.
//
// # Shards
//
// Several operator processes can share the components of one type, each
// one shard, as Flux shards its controllers: give each process
//
//	selector, _ := component.ShardSelector(name, key)
//	opts.Selector = selector
//	opts.DependentLabels = component.ShardLabels(name, key)
//	ctrl.Options{Cache: component.CacheFor(&MyComponent{}, selector, cache.Options{}),
//		LeaderElectionID: name + ".shard-" + key}
//
// and it reconciles only the components labelled <name>/shard=key (key ""
// takes those without the label), caches only those and the objects they
// own, and elects its own leader. Changing a component's label moves it: the
// old shard forgets it, the new one adopts its objects without re-creating
// any.
//
// # Targets shared between Reconcilers
//
// The Reconcilers of one process share their connections to each target
// cluster and identity (package internal/connections): one client, one
// label-filtered cache, one watch of each kind of object, whoever applies
// it. Reconcilers share when their cache options are equal (operator name,
// FieldOwner, TakeOver, Namespaces, TargetTimeout, DependentLabels); labels
// that tell their objects apart without partitioning the caches, such as a
// served kind's, are ObjectLabels. Each keeps its own applier and event
// handlers, which leave other Reconcilers' objects alone.
package component
