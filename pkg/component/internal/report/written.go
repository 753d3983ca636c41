package report

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
)

// Written keeps the component as the reconciler last wrote it, so the
// next reconcile works on that even when the informer cache lags behind,
// and the components whose finalizer it removed, which read as gone.
type Written struct {
	mu      sync.Mutex
	objects map[types.NamespacedName]api.Component
	cached  map[types.NamespacedName]string // the newest resourceVersion the cache has shown
	done    map[types.NamespacedName]types.UID
}

// NewWritten returns an empty memory of written statuses.
func NewWritten() *Written {
	return &Written{objects: map[types.NamespacedName]api.Component{}, cached: map[types.NamespacedName]string{}, done: map[types.NamespacedName]types.UID{}}
}

// Finalized records that obj's finalizer is removed: its deletion is over.
func (w *Written) Finalized(obj client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done[types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}] = obj.GetUID()
}

// IsFinalized tells whether obj is a component whose finalizer was removed.
func (w *Written) IsFinalized(obj client.Object) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	uid, ok := w.done[types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}]
	return ok && uid == obj.GetUID()
}

// Remember keeps a copy of obj as written, unless the cache already shows
// that version (its watch event may come before the write's answer).
func (w *Written) Remember(obj api.Component) {
	w.mu.Lock()
	defer w.mu.Unlock()
	id := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if notOlder(w.cached[id], obj.GetResourceVersion()) {
		delete(w.objects, id)
		return
	}
	w.objects[id] = obj.DeepCopyObject().(api.Component)
}

// Newest returns the written object when the cached one is older.
func (w *Written) Newest(cached api.Component) api.Component {
	w.mu.Lock()
	defer w.mu.Unlock()
	id := types.NamespacedName{Namespace: cached.GetNamespace(), Name: cached.GetName()}
	written, ok := w.objects[id]
	if !ok {
		return cached
	}
	cmp, err := resourceversion.CompareResourceVersion(cached.GetResourceVersion(), written.GetResourceVersion())
	if err != nil || cmp >= 0 {
		delete(w.objects, id)
		return cached
	}
	return written.DeepCopyObject().(api.Component)
}

// CaughtUp drops the written copy of cached's component once the cache holds
// that version or a newer one: until the next reconcile of that component,
// which may be many minutes away, it would only duplicate the cache.
func (w *Written) CaughtUp(cached client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	id := types.NamespacedName{Namespace: cached.GetNamespace(), Name: cached.GetName()}
	version := cached.GetResourceVersion()
	if !notOlder(w.cached[id], version) {
		w.cached[id] = version
	}
	if written, ok := w.objects[id]; ok && notOlder(version, written.GetResourceVersion()) {
		delete(w.objects, id)
	}
}

// Uncached records that the cache no longer holds the component.
func (w *Written) Uncached(obj client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.cached, types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()})
}

// notOlder tells whether resourceVersion a is b or newer; an empty or
// unreadable one is not.
func notOlder(a, b string) bool {
	cmp, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && cmp >= 0
}

// Copies returns how many components a copy of the written status is kept
// of.
func (w *Written) Copies() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.objects)
}

// Forget drops what is kept of the component id.
func (w *Written) Forget(id types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.objects, id)
	delete(w.cached, id)
	delete(w.done, id)
}

// Notes remembers the last event reason and message per component, so
// the same event is not recorded again on every reconcile.
type Notes struct {
	mu   sync.Mutex
	last map[types.NamespacedName]string
}

// NewNotes returns an empty memory of notes.
func NewNotes() *Notes { return &Notes{last: map[types.NamespacedName]string{}} }

// Changed records note for id and reports whether it differs from the last one.
func (n *Notes) Changed(id types.NamespacedName, note string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.last[id] == note {
		return false
	}
	n.last[id] = note
	return true
}

// Seed gives a component this process has no note of yet (after a
// restart, or when its shard takes it over) the note of the outcome its
// status already reports, when that is Ready at its generation: whoever
// wrote that status announced it, and announcing it again would write an
// Event per component at every restart.
func (n *Notes) Seed(id types.NamespacedName, generation int64, status *api.Status) {
	ready := status.ReadyCondition()
	if ready == nil || ready.Status != metav1.ConditionTrue || ready.Reason != api.ReasonReady || ready.ObservedGeneration != generation {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, noted := n.last[id]; !noted {
		n.last[id] = api.ReasonReady
	}
}

// Forget drops the note of the component id.
func (n *Notes) Forget(id types.NamespacedName) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.last, id)
}
