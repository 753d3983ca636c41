package operator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/lru"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// gitKeyRings remembers the key rings of the Components' Git verify
// Secrets, so that a pass over an unchanged Component reads no Secret: a
// key ring holds public keys only. One serves a generation of its
// Component and at most the repository's interval, so a rotated key is
// read within that time.
type gitKeyRings struct {
	now func() time.Time

	mu    sync.Mutex
	byKey *lru.Cache // Component and field → gitKeyRing
}

type gitKeyRing struct {
	uid        types.UID
	generation int64
	secret     string
	read       time.Time
	keys       *git.KeyRing
}

func newGitKeyRings() *gitKeyRings {
	return &gitKeyRings{now: time.Now, byKey: lru.New(trustedKeysRemembered)}
}

// get returns the key ring of v's Secret for c's field, reading it as c's
// identity unless a valid one is remembered.
func (g *gitKeyRings) get(ctx context.Context, reader client.Reader, c *v1alpha1.Component, field string, v *v1alpha1.GitVerification, maxAge time.Duration) (*git.KeyRing, error) {
	key := c.Namespace + "/" + c.Name + " " + field
	g.mu.Lock()
	if e, ok := g.byKey.Get(key); ok {
		e := e.(gitKeyRing)
		if e.uid == c.UID && e.generation == c.Generation && e.secret == v.SecretRef.Name && g.now().Sub(e.read) < maxAge {
			g.mu.Unlock()
			return e.keys, nil
		}
	}
	g.mu.Unlock()
	data, err := readSecret(ctx, reader, c.Namespace, field+".secretRef", v.SecretRef.Name, userError)
	if err != nil {
		g.forget(key)
		return nil, err
	}
	keys, err := git.NewKeyRing("Secret "+v.SecretRef.Name, data)
	if err != nil {
		g.forget(key)
		return nil, &manifests.VerificationError{Err: fmt.Errorf("%s: %w", field, err)}
	}
	g.mu.Lock()
	g.byKey.Add(key, gitKeyRing{uid: c.UID, generation: c.Generation, secret: v.SecretRef.Name, read: g.now(), keys: keys})
	g.mu.Unlock()
	return keys, nil
}

func (g *gitKeyRings) forget(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.byKey.Remove(key)
}
