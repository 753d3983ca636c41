package component

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// writtenStatus keeps the component as the reconciler last wrote it, so the
// next reconcile works on that even when the informer cache lags behind,
// and the components whose finalizer it removed, which read as gone.
type writtenStatus[T Component] struct {
	mu      sync.Mutex
	objects map[types.NamespacedName]T
	done    map[types.NamespacedName]types.UID
}

func newWrittenStatus[T Component]() *writtenStatus[T] {
	return &writtenStatus[T]{objects: map[types.NamespacedName]T{}, done: map[types.NamespacedName]types.UID{}}
}

// finalized records that obj's finalizer is removed: its deletion is over.
func (w *writtenStatus[T]) finalized(obj T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done[types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}] = obj.GetUID()
}

// isFinalized tells whether obj is a component whose finalizer was removed.
func (w *writtenStatus[T]) isFinalized(obj T) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	uid, ok := w.done[types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}]
	return ok && uid == obj.GetUID()
}

func (w *writtenStatus[T]) remember(obj T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.objects[types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}] = obj.DeepCopyObject().(T)
}

// newest returns the written object when the cached one is older.
func (w *writtenStatus[T]) newest(cached T) T {
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
	return written.DeepCopyObject().(T)
}

func (w *writtenStatus[T]) forget(id types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.objects, id)
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

func (n *eventNotes) forget(id types.NamespacedName) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.last, id)
}
