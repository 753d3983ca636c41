package component

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// aheadRenders keeps, for each component, the render of the Reconcile that
// wrote the status ahead of its objects (writeahead.go), for the next
// Reconcile, which starts at once and creates them: it applies that render
// instead of rendering again, as the one Reconcile of a pass did before
// the write ahead split it in two. The render is taken only when nothing of
// the component changed since the write (its resourceVersion is the one
// the write returned), and once: an entry lives from a write ahead to the
// next Reconcile.
type aheadRenders struct {
	mu   sync.Mutex
	byID map[types.NamespacedName]aheadRender
}

// aheadRender is the render of one component at the resourceVersion its
// write ahead returned.
type aheadRender struct {
	uid     types.UID
	version string
	objects []client.Object
	source  *manifests.SourceInfo
}

func newAheadRenders() *aheadRenders {
	return &aheadRenders{byID: map[types.NamespacedName]aheadRender{}}
}

// keep keeps the render of c, whose status was just written ahead.
func (a *aheadRenders) keep(id types.NamespacedName, c metav1.Object, objects []client.Object, source *manifests.SourceInfo) {
	if objects == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.byID[id] = aheadRender{uid: c.GetUID(), version: c.GetResourceVersion(), objects: objects, source: source}
}

// take returns the render kept for c when c is as the write ahead left it,
// and forgets it in any case.
func (a *aheadRenders) take(id types.NamespacedName, c metav1.Object) ([]client.Object, *manifests.SourceInfo, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	kept, ok := a.byID[id]
	if !ok {
		return nil, nil, false
	}
	delete(a.byID, id)
	if kept.uid != c.GetUID() || kept.version != c.GetResourceVersion() {
		return nil, nil, false
	}
	return kept.objects, kept.source, true
}

func (a *aheadRenders) forget(id types.NamespacedName) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.byID, id)
}
