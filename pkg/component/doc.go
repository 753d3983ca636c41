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
// Enqueue does the same from an informer added while running.
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
package component
