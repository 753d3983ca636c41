// Package manifests is wavekit's manifest contract: what a generator author
// and an operator author share. It has no applier, informer cache or kstatus
// in it; the engine that applies manifests is package engine.
//
// # Generators
//
// Generator renders a component's objects from its Parameters; Values and
// GeneratorFunc are the simple implementations. The context of Generate
// carries the component (ComponentInfo, with FirstApply for Helm's
// .Release.IsInstall), a reader of the target cluster (WithClient) and its
// discovery (WithDiscovery).
//
// # Annotations and policies
//
// The keys of the annotations that steer the engine (apply-order,
// purge-order, delete-order, the reconcile, update, delete and adoption
// policies, status hints, reapply interval, delete hooks) are Key(prefix,
// Annotation...), where prefix is the operator name. ParsePolicies reads them
// with Defaults filled in and returns an AnnotationError naming the object,
// key and allowed values for a bad one, and an UnknownKeyError naming the
// nearest of KnownKeys for a key under the prefix it does not know.
// CheckOperatorName checks a prefix. OwnerID is the value of the owner
// label.
//
// # Inventory
//
// InventoryItem is one applied object as a component's status records it;
// ObjectKey names objects independently of their API version.
//
// # Decoding
//
// DecodeObjects reads multi-document YAML or JSON into unstructured objects.
//
// # Errors
//
// UserError marks an error only a change fixes (bad input), so that callers
// retry it on change rather than with backoff.
package manifests
