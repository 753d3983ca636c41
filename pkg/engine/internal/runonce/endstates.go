package runonce

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/expiry"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/live"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// EndStateMemory is how long EndStates keeps the last state of an object it
// has not seen since: a Job that is deleted later passes through the cache's
// transform once more, with its final state.
const EndStateMemory = 10 * time.Minute

// EndStates keeps the last state the cache's informers saw of every object
// that runs to completion, so that a pass that finds one gone knows how it
// ended: the watch event of a deletion carries the object's final state,
// and the informer hands it to its transform before it drops the object
// from the cache, so the state is here before any reader sees the object
// gone. It keeps what the verdicts need: of a run-once object (a Job, a
// hook), its conditions (the engine's runEnded); of a test, the object without its
// managedFields, which the engine's judgeTest reads as it reads a live test (a Pod's
// phase and container statuses, a Job's conditions, the owner's health
// checks). A nil *EndStates remembers nothing.
type EndStates struct {
	testHook string // the annotation that marks a test
	last     *expiry.Map[manifests.ObjectKey, *unstructured.Unstructured]
}

// NewEndStates returns the memory of the target of the operator
// operatorName, on the clock now.
func NewEndStates(operatorName string, now func() time.Time) *EndStates {
	return &EndStates{
		testHook: manifests.Key(operatorName, manifests.AnnotationTestHook),
		last:     expiry.New[manifests.ObjectKey, *unstructured.Unstructured](EndStateMemory, now),
	}
}

// Observing returns next, as a cache transform, preceded by recording the
// state of every object that runs to completion and passes through it.
func (e *EndStates) Observing(next toolscache.TransformFunc) toolscache.TransformFunc {
	return func(obj any) (any, error) {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			if kept := e.keep(u); kept != nil {
				e.last.Put(live.KeyOf(u), kept)
			}
		}
		return next(obj)
	}
}

// keep returns what a verdict needs of u, or nil when u does not run to
// completion.
func (e *EndStates) keep(u *unstructured.Unstructured) *unstructured.Unstructured {
	// Every watch event comes here: read the annotation without copying
	// the object's annotations, as GetAnnotations would.
	hook, _, _ := unstructured.NestedString(u.Object, "metadata", "annotations", e.testHook)
	switch {
	case manifests.IsTestHook(hook):
		kept := u.DeepCopy()
		kept.SetManagedFields(nil)
		return kept
	case RunsOnce(u.GroupVersionKind()):
		return conditionsOnly(u)
	}
	return nil
}

// conditionsOnly is what the engine's runEnded needs of a run-once object: its identity,
// deletion timestamp and conditions.
func conditionsOnly(u *unstructured.Unstructured) *unstructured.Unstructured {
	kept := &unstructured.Unstructured{Object: map[string]any{}}
	kept.SetGroupVersionKind(u.GroupVersionKind())
	kept.SetNamespace(u.GetNamespace())
	kept.SetName(u.GetName())
	kept.SetUID(u.GetUID())
	kept.SetDeletionTimestamp(u.GetDeletionTimestamp())
	if conditions, found, _ := unstructured.NestedSlice(u.Object, "status", "conditions"); found {
		_ = unstructured.SetNestedSlice(kept.Object, conditions, "status", "conditions")
	}
	return kept
}

// LastSeen returns the last state seen of the object of key within
// EndStateMemory, or nil.
func (e *EndStates) LastSeen(key manifests.ObjectKey) *unstructured.Unstructured {
	if e == nil {
		return nil
	}
	last, ok := e.last.Get(key)
	if !ok {
		return nil
	}
	return last.DeepCopy()
}
