package operator

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/lru"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// trustedKeysRemembered bounds how many Components' verifiers are kept.
const trustedKeysRemembered = 1024

// trustedKeys remembers the verifier built from each Component's
// spec.chart.verify Secret, so that a pass over an unchanged Component
// reads no Secret: a verifier holds public keys only, never a secret.
// A verifier serves one generation of its Component and at most the
// requeue interval, so a rotated key is read within that time.
type trustedKeys struct {
	now func() time.Time

	mu    sync.Mutex
	byKey *lru.Cache // types.NamespacedName → trustedEntry
}

type trustedEntry struct {
	uid        types.UID // a Component deleted and created again reads anew
	generation int64
	spec       v1alpha1.ChartVerification
	read       time.Time
	verifier   fetch.Verifier
}

func newTrustedKeys() *trustedKeys {
	return &trustedKeys{now: time.Now, byKey: lru.New(trustedKeysRemembered)}
}

// get returns the verifier remembered for c, if it is still valid for it.
func (t *trustedKeys) get(c *v1alpha1.Component, maxAge time.Duration) (fetch.Verifier, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.byKey.Get(types.NamespacedName{Namespace: c.Namespace, Name: c.Name})
	if !ok {
		return nil, false
	}
	e := v.(trustedEntry)
	if e.uid != c.UID || e.generation != c.Generation || e.spec != *c.Spec.Chart.Verify || t.now().Sub(e.read) >= maxAge {
		return nil, false
	}
	return e.verifier, true
}

// put remembers the verifier just built from c's Secret.
func (t *trustedKeys) put(c *v1alpha1.Component, verifier fetch.Verifier) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byKey.Add(types.NamespacedName{Namespace: c.Namespace, Name: c.Name},
		trustedEntry{uid: c.UID, generation: c.Generation, spec: *c.Spec.Chart.Verify, read: t.now(), verifier: verifier})
}

// forget drops what is remembered for c (its Secret could not be used).
func (t *trustedKeys) forget(c *v1alpha1.Component) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byKey.Remove(types.NamespacedName{Namespace: c.Namespace, Name: c.Name})
}
