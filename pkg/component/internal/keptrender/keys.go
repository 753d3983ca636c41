package keptrender

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/sealing"
)

// The annotations of the key Secret: a person sets the first to ask for a
// new key (any new value asks again); the operator sets the second to the
// value it made a key for.
const (
	AnnotationRotateRequested = "wavekit.dev/rotate-requested-at"
	AnnotationRotatedFor      = "wavekit.dev/rotated-for"
)

// Keys is the operator's ring of keys for kept renders: read from its
// Secret, or created there, on first use, and followed while the operator
// runs (Follow).
type Keys struct {
	client client.Client
	reader client.Reader
	secret types.NamespacedName

	mu        sync.Mutex
	ring      *sealing.Ring
	read      *corev1.Secret // the Secret as load read or created it
	loading   chan struct{}  // closed when the load under way ends; nil when none is
	rotations int            // new active keys seen since the start
	onRotate  map[int]func() // by the number OnRotate gave each
	nextCall  int
	followers int                // Follow calls under way
	unfollow  context.CancelFunc // ends the one watch of the Secret they share
}

// NewKeys returns the keys kept in Secret secret, written with c and read
// with reader.
func NewKeys(c client.Client, reader client.Reader, secret types.NamespacedName) *Keys {
	return &Keys{client: c, reader: reader, secret: secret}
}

// Secret is where the keys are kept.
func (k *Keys) Secret() types.NamespacedName { return k.secret }

// Active is the ID of the key that seals, "" before the keys are read.
func (k *Keys) Active() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ring == nil {
		return ""
	}
	return k.ring.Active()
}

// Rotations is how many times the active key changed since the start.
func (k *Keys) Rotations() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.rotations
}

// OnRotate calls f, in the goroutine that follows the Secret, whenever the
// active key changes, until the function it returns is called.
func (k *Keys) OnRotate(f func()) (remove func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.onRotate == nil {
		k.onRotate = map[int]func(){}
	}
	id := k.nextCall
	k.nextCall++
	k.onRotate[id] = f
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		delete(k.onRotate, id)
	}
}

// Seal seals plaintext with the active key (sealing.Ring.Seal).
func (k *Keys) Seal(ctx context.Context, aad, plaintext []byte) (string, []byte, error) {
	ring, err := k.load(ctx)
	if err != nil {
		return "", nil, err
	}
	return ring.Seal(aad, plaintext)
}

// Open opens what Seal sealed with key id. A key it does not hold sends it
// to the Secret once more: another replica may have rotated just now.
func (k *Keys) Open(ctx context.Context, id string, aad, sealed []byte) ([]byte, error) {
	ring, err := k.load(ctx)
	if err != nil {
		return nil, err
	}
	plain, err := ring.Open(id, aad, sealed)
	var unknown *sealing.UnknownKeyError
	if !errors.As(err, &unknown) || id == "" {
		return plain, err
	}
	secret := &corev1.Secret{}
	if k.reader.Get(ctx, k.secret, secret) != nil {
		return nil, err // no other keys to be had
	}
	fresh, ferr := sealing.FromSecret(secret)
	if ferr != nil {
		return nil, err
	}
	k.observeRing(fresh)
	return fresh.Open(id, aad, sealed)
}

// load returns the ring, reading or creating its Secret the first time.
// Callers wait for a load under way without a lock held across the
// request, each as long as its ctx allows.
func (k *Keys) load(ctx context.Context) (*sealing.Ring, error) {
	for {
		k.mu.Lock()
		ring, loading := k.ring, k.loading
		if ring == nil && loading == nil {
			k.loading = make(chan struct{})
		}
		k.mu.Unlock()
		switch {
		case ring != nil:
			return ring, nil
		case loading == nil:
			return k.ensure(ctx)
		}
		select {
		case <-loading:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the keys, Secret %s: %w", k.secret, ctx.Err())
		}
	}
}

// ensure reads or creates the Secret, as the one load under way.
func (k *Keys) ensure(ctx context.Context) (*sealing.Ring, error) {
	ring, secret, _, err := sealing.Ensure(ctx, k.client, k.reader, k.secret, metav1.ObjectMeta{
		Labels: map[string]string{"app.kubernetes.io/component": "render-key"},
	})
	k.mu.Lock()
	defer k.mu.Unlock()
	if err == nil && k.ring == nil {
		k.ring, k.read = ring, secret
	}
	close(k.loading)
	k.loading = nil
	if err != nil {
		return nil, err
	}
	return k.ring, nil
}

// observe takes the Secret as the watch delivers it: a rotation asked for
// and not made yet is made; otherwise its ring is the ring.
func (k *Keys) observe(ctx context.Context, log logr.Logger, secret *corev1.Secret) {
	if asked := secret.Annotations[AnnotationRotateRequested]; asked != "" && asked != secret.Annotations[AnnotationRotatedFor] {
		if err := k.rotate(ctx, secret, asked); err != nil {
			log.Error(err, "rotating the key of kept renders", "secret", k.secret)
		}
		return
	}
	ring, err := sealing.FromSecret(secret)
	if err != nil {
		log.Error(err, "the keys of kept renders are left as they were read")
		return
	}
	k.observeRing(ring)
}

// observeRing makes ring the ring, and calls the OnRotate functions when
// its active key is new.
func (k *Keys) observeRing(ring *sealing.Ring) {
	k.mu.Lock()
	rotated := k.ring != nil && k.ring.Active() != ring.Active()
	k.ring = ring
	if rotated {
		k.rotations++
	}
	calls := slices.Collect(maps.Values(k.onRotate))
	k.mu.Unlock()
	if rotated {
		for _, f := range calls {
			f()
		}
	}
}

// rotate writes a new active key into secret, for the request asked, and
// takes it up. A conflict means another replica wrote first: its event
// follows.
func (k *Keys) rotate(ctx context.Context, secret *corev1.Secret, asked string) error {
	ring, err := sealing.FromSecret(secret)
	if err != nil {
		return err
	}
	if ring, err = ring.Rotated(); err != nil {
		return err
	}
	next := secret.DeepCopy()
	ring.Into(next)
	next.Annotations[AnnotationRotatedFor] = asked
	err = k.client.Update(ctx, next)
	switch {
	case apierrors.IsConflict(err):
		return nil
	case err != nil:
		return fmt.Errorf("writing the new key into Secret %s: %w", k.secret, err)
	}
	k.observeRing(ring)
	return nil
}
