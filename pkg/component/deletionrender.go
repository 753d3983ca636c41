package component

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// deletionRenders keeps, while a component is being deleted, the render
// its delete hooks came from, so that the passes of one deletion (one per
// wave and per batch of deletion events) render once, as `helm uninstall`
// does. A new generation renders again; the entry goes with the component.
type deletionRenders struct {
	mu   sync.Mutex
	byID map[types.NamespacedName]deletionRender
}

type deletionRender struct {
	uid        types.UID
	generation int64
	objects    []client.Object
}

func newDeletionRenders() *deletionRenders {
	return &deletionRenders{byID: map[types.NamespacedName]deletionRender{}}
}

// get returns copies of the objects rendered for this deletion of the
// component (uid) at generation, if any.
func (d *deletionRenders) get(id types.NamespacedName, uid types.UID, generation int64) ([]client.Object, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	kept, ok := d.byID[id]
	if !ok || kept.uid != uid || kept.generation != generation {
		return nil, false
	}
	return copyObjects(kept.objects), true
}

// put keeps copies of objects, rendered for this deletion.
func (d *deletionRenders) put(id types.NamespacedName, uid types.UID, generation int64, objects []client.Object) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.byID[id] = deletionRender{uid: uid, generation: generation, objects: copyObjects(objects)}
}

func (d *deletionRenders) forget(id types.NamespacedName) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.byID, id)
}

func copyObjects(objects []client.Object) []client.Object {
	out := make([]client.Object, len(objects))
	for i, o := range objects {
		out[i] = o.DeepCopyObject().(client.Object)
	}
	return out
}
