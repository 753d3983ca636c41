package keptrender

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// sharedKey names the Keys of one manager's connection and one Secret.
type sharedKey struct {
	local  *rest.Config
	secret types.NamespacedName
}

// sharedKeys is one Keys and how many Reconcilers hold it.
type sharedKeys struct {
	keys  *Keys
	users int
}

var shared = struct {
	mu    sync.Mutex
	byKey map[sharedKey]*sharedKeys
}{byKey: map[sharedKey]*sharedKeys{}}

// Shared returns the Keys kept in secret for the Reconcilers of the manager
// whose config is local (a served kind's each): one load of the Secret and
// one watch of it (Follow) for all of them, where each once read and
// watched it on its own. The first caller's c and reader make them; the
// function returned gives them back, and the last to give them back
// forgets them.
func Shared(local *rest.Config, c client.Client, reader client.Reader, secret types.NamespacedName) (*Keys, func()) {
	key := sharedKey{local: local, secret: secret}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	held, ok := shared.byKey[key]
	if !ok {
		held = &sharedKeys{keys: NewKeys(c, reader, secret)}
		shared.byKey[key] = held
	}
	held.users++
	return held.keys, sync.OnceFunc(func() {
		shared.mu.Lock()
		defer shared.mu.Unlock()
		if held.users--; held.users == 0 && shared.byKey[key] == held {
			delete(shared.byKey, key)
		}
	})
}
