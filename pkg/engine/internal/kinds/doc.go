// Package kinds knows what the engine needs to know of a kind without
// asking a cluster: its stage within a wave (namespaces, definitions,
// configuration, workloads, API services, and the instances of the kinds a
// component's own CRDs and APIServices serve, last: StageOf, ServedType),
// and, for the built-in kinds, whether it is namespaced
// (OfflineRESTMapper, for checks without an API server).
package kinds
