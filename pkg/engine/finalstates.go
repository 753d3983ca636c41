package engine

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// finalStateTTL is how long the last state of a deleted test object is
// kept for the pass that looks at it next.
const finalStateTTL = 10 * time.Minute

// finalStates keeps the last state of the test objects that delete events
// took out of the cache: a test Job that a TTL deletes the moment it
// finishes has its outcome in that state, and a test run judges it by it
// instead of running it again.
type finalStates struct {
	now func() time.Time

	mu     sync.Mutex
	states map[manifests.ObjectKey]finalState
}

type finalState struct {
	object *unstructured.Unstructured
	at     time.Time
}

func newFinalStates(now func() time.Time) *finalStates {
	return &finalStates{now: now, states: map[manifests.ObjectKey]finalState{}}
}

// record keeps obj as the last state of the object of key, and drops the
// states older than finalStateTTL.
func (f *finalStates) record(key manifests.ObjectKey, obj client.Object) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return
		}
		u = &unstructured.Unstructured{Object: content}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	for k, s := range f.states {
		if now.Sub(s.at) > finalStateTTL {
			delete(f.states, k)
		}
	}
	f.states[key] = finalState{object: u.DeepCopy(), at: now}
}

// last returns the last state of the deleted object of key, or nil.
func (f *finalStates) last(key manifests.ObjectKey) *unstructured.Unstructured {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.states[key]
	if !ok {
		return nil
	}
	return s.object.DeepCopy()
}
