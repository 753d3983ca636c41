package engine

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// runEndMemory is how long runEnds keeps the last state of a run-once object
// it has not seen since: a Job that is deleted later passes through the
// cache's transform once more, with its final state.
const runEndMemory = 10 * time.Minute

// runEnds keeps the last state the cache's informers saw of every run-once
// object (its conditions), so that a pass that finds such an object gone
// knows how it ended: the watch event of a deletion carries the object's
// final state, and the informer hands it to its transform before it drops
// the object from the cache, so the state is here before any reader sees
// the object gone. A nil *runEnds remembers nothing.
type runEnds struct {
	now func() time.Time

	mu    sync.Mutex
	last  map[manifests.ObjectKey]seenRun
	swept time.Time
}

type seenRun struct {
	object *unstructured.Unstructured
	at     time.Time
}

func newRunEnds(now func() time.Time) *runEnds {
	return &runEnds{now: now, last: map[manifests.ObjectKey]seenRun{}, swept: now()}
}

// observing returns next, as a cache transform, preceded by recording the
// state of every run-once object that passes through it.
func (e *runEnds) observing(next toolscache.TransformFunc) toolscache.TransformFunc {
	return func(obj any) (any, error) {
		if u, ok := obj.(*unstructured.Unstructured); ok && runsOnce(u.GroupVersionKind()) {
			e.record(u)
		}
		return next(obj)
	}
}

// record keeps what a verdict needs of u: its identity, deletion timestamp
// and conditions.
func (e *runEnds) record(u *unstructured.Unstructured) {
	kept := &unstructured.Unstructured{Object: map[string]any{}}
	kept.SetGroupVersionKind(u.GroupVersionKind())
	kept.SetNamespace(u.GetNamespace())
	kept.SetName(u.GetName())
	kept.SetUID(u.GetUID())
	kept.SetDeletionTimestamp(u.GetDeletionTimestamp())
	if conditions, found, _ := unstructured.NestedSlice(u.Object, "status", "conditions"); found {
		_ = unstructured.SetNestedSlice(kept.Object, conditions, "status", "conditions")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	e.last[keyOf(kept)] = seenRun{object: kept, at: now}
	if now.Sub(e.swept) >= runEndMemory {
		e.swept = now
		for key, seen := range e.last {
			if now.Sub(seen.at) > runEndMemory {
				delete(e.last, key)
			}
		}
	}
}

// lastSeen returns the last state seen of the run-once object of key, or nil.
func (e *runEnds) lastSeen(key manifests.ObjectKey) *unstructured.Unstructured {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	seen, ok := e.last[key]
	if !ok {
		return nil
	}
	return seen.object.DeepCopy()
}
