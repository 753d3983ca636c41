package component

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// ownerIndex maps the owner label values of the reconciler's components
// back to the components, for the events of their objects.
type ownerIndex struct {
	mu  sync.Mutex
	ids map[string]types.NamespacedName
}

func newOwnerIndex() *ownerIndex {
	return &ownerIndex{ids: map[string]types.NamespacedName{}}
}

func (o *ownerIndex) set(ownerID string, id types.NamespacedName) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ids[ownerID] = id
}

func (o *ownerIndex) get(ownerID string) (types.NamespacedName, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	id, ok := o.ids[ownerID]
	return id, ok
}
