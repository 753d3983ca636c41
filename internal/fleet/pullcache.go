package fleet

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheFor adds to base what the ComponentSet controller caches of
// Leases: the agents' heartbeats only (named AgentLease, one per pulled
// cluster), not every Lease of the hub — leader elections, the API
// servers' identities and, on a hub with nodes, one per node. Selecting
// them by name rather than by a label keeps the Leases of agents that
// predate any such label in view.
//
// What else the controller caches of pulled clusters grows with the
// clusters and the sets only, never with what the members run: one
// ComponentWork per cluster and set (the set's template and a status of
// conditions, counts and a digest) and the metadata of one cluster Secret
// per cluster.
func CacheFor(base cache.Options) cache.Options {
	byObject := map[client.Object]cache.ByObject{}
	for o, b := range base.ByObject {
		byObject[o] = b
	}
	byObject[&coordinationv1.Lease{}] = cache.ByObject{Field: fields.OneTermEqualSelector("metadata.name", AgentLease)}
	base.ByObject = byObject
	return base
}
