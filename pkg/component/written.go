package component

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// writtenStatus keeps the component as the reconciler last wrote it, so the
// next reconcile works on that even when the informer cache lags behind,
// and the components whose finalizer it removed, which read as gone.
type writtenStatus struct {
	mu      sync.Mutex
	objects map[types.NamespacedName]Component
	cached  map[types.NamespacedName]string // the newest resourceVersion the cache has shown
	done    map[types.NamespacedName]types.UID
}

func newWrittenStatus() *writtenStatus {
	return &writtenStatus{objects: map[types.NamespacedName]Component{}, cached: map[types.NamespacedName]string{}, done: map[types.NamespacedName]types.UID{}}
}

// finalized records that obj's finalizer is removed: its deletion is over.
func (w *writtenStatus) finalized(obj client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done[types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}] = obj.GetUID()
}

// isFinalized tells whether obj is a component whose finalizer was removed.
func (w *writtenStatus) isFinalized(obj client.Object) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	uid, ok := w.done[types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}]
	return ok && uid == obj.GetUID()
}

// remember keeps a copy of obj as written, unless the cache already shows
// that version (its watch event may come before the write's answer).
func (w *writtenStatus) remember(obj Component) {
	w.mu.Lock()
	defer w.mu.Unlock()
	id := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if notOlder(w.cached[id], obj.GetResourceVersion()) {
		delete(w.objects, id)
		return
	}
	w.objects[id] = obj.DeepCopyObject().(Component)
}

// newest returns the written object when the cached one is older.
func (w *writtenStatus) newest(cached Component) Component {
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
	return written.DeepCopyObject().(Component)
}

// caughtUp drops the written copy of cached's component once the cache holds
// that version or a newer one: until the next reconcile of that component,
// which may be many minutes away, it would only duplicate the cache.
func (w *writtenStatus) caughtUp(cached client.Object) {
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

// uncached records that the cache no longer holds the component.
func (w *writtenStatus) uncached(obj client.Object) {
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

func (w *writtenStatus) forget(id types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.objects, id)
	delete(w.cached, id)
	delete(w.done, id)
}

// eventNotes remembers the last event reason and message per component, so
// the same event is not recorded again on every reconcile.
type eventNotes struct {
	mu   sync.Mutex
	last map[types.NamespacedName]string
}

func newEventNotes() *eventNotes { return &eventNotes{last: map[types.NamespacedName]string{}} }

// changed records note for id and reports whether it differs from the last one.
func (n *eventNotes) changed(id types.NamespacedName, note string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.last[id] == note {
		return false
	}
	n.last[id] = note
	return true
}

// seed gives a component this process has no note of yet (after a
// restart, or when its shard takes it over) the note of the outcome its
// status already reports, when that is Ready at its generation: whoever
// wrote that status announced it, and announcing it again would write an
// Event per component at every restart.
func (n *eventNotes) seed(id types.NamespacedName, generation int64, status *Status) {
	ready := status.ReadyCondition()
	if ready == nil || ready.Status != metav1.ConditionTrue || ready.Reason != ReasonReady || ready.ObservedGeneration != generation {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, noted := n.last[id]; !noted {
		n.last[id] = ReasonReady
	}
}

func (n *eventNotes) forget(id types.NamespacedName) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.last, id)
}
