package keptrender

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Hooks holds, for each component, the delete hooks of the last render
// this process made of its spec, so that a deletion runs the hooks of what
// it removes without rendering again, as `helm uninstall` runs the hooks of
// the release it stored. Every successful render of an apply keeps its
// hooks (most charts have none: nothing but the key is kept); a deletion
// that finds none for the component's spec (the operator restarted, or the
// spec changed since) renders once and keeps those. The entry goes with
// the component. They live in memory only.
type Hooks struct {
	mu   sync.Mutex
	byID map[types.NamespacedName]hookRender
}

// hookRender is the delete hooks of one render of one spec of a component.
type hookRender struct {
	uid   types.UID
	spec  [sha256.Size]byte
	hooks []client.Object
}

// NewHooks returns an empty memory of delete hooks.
func NewHooks() *Hooks {
	return &Hooks{byID: map[types.NamespacedName]hookRender{}}
}

// Get returns copies of the delete hooks kept for the component id, of UID
// uid, at spec, if any.
func (k *Hooks) Get(id types.NamespacedName, uid types.UID, spec manifests.Parameters) ([]client.Object, bool) {
	digest, ok := specDigest(spec)
	if !ok {
		return nil, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	kept, ok := k.byID[id]
	if !ok || kept.uid != uid || kept.spec != digest {
		return nil, false
	}
	return copyObjects(kept.hooks), true
}

// Keep keeps copies of the delete hooks (the objects annotated
// <prefix>/delete-hook) among objects, rendered from the component's spec.
func (k *Hooks) Keep(id types.NamespacedName, uid types.UID, spec manifests.Parameters, objects []client.Object, prefix string) {
	digest, ok := specDigest(spec)
	if !ok {
		return
	}
	hooks := copyObjects(engine.DeleteHooks(objects, prefix))
	k.mu.Lock()
	defer k.mu.Unlock()
	k.byID[id] = hookRender{uid: uid, spec: digest, hooks: hooks}
}

// Forget drops what is kept of the component id.
func (k *Hooks) Forget(id types.NamespacedName) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.byID, id)
}

// specDigest is the SHA-256 of spec's JSON; false when it has none.
func specDigest(spec manifests.Parameters) ([sha256.Size]byte, bool) {
	data, err := json.Marshal(spec)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(data), true
}

func copyObjects(objects []client.Object) []client.Object {
	if len(objects) == 0 {
		return nil
	}
	out := make([]client.Object, len(objects))
	for i, o := range objects {
		out[i] = o.DeepCopyObject().(client.Object)
	}
	return out
}
