package sealing

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A ring's Secret: one data entry per key (its ID: its 32 bytes), the
// active and previous IDs in annotations.
const (
	SecretType         corev1.SecretType = "wavekit.dev/keys"
	AnnotationActive                     = "wavekit.dev/active-key"
	AnnotationPrevious                   = "wavekit.dev/previous-key"
)

// FromSecret returns the ring secret holds.
func FromSecret(secret *corev1.Secret) (*Ring, error) {
	where := client.ObjectKeyFromObject(secret)
	if secret.Type != SecretType {
		return nil, fmt.Errorf("Secret %s holds no keys (type %s, not %s)", where, secret.Type, SecretType)
	}
	r := &Ring{active: secret.Annotations[AnnotationActive], keys: map[string][]byte{}}
	for id, key := range secret.Data {
		if len(key) != KeySize {
			return nil, fmt.Errorf("Secret %s: key %s has %d bytes, not %d", where, id, len(key), KeySize)
		}
		r.keys[id] = key
	}
	if !r.Has(r.active) {
		return nil, fmt.Errorf("Secret %s: its annotation %s names no key it holds", where, AnnotationActive)
	}
	if previous := secret.Annotations[AnnotationPrevious]; r.Has(previous) {
		r.previous = previous
	}
	return r, nil
}

// Into writes r into secret: its type, its keys (no other data) and the
// IDs' annotations; other annotations stay.
func (r *Ring) Into(secret *corev1.Secret) {
	secret.Type = SecretType
	secret.Data = make(map[string][]byte, len(r.keys))
	for id, key := range r.keys {
		secret.Data[id] = key
	}
	if secret.Annotations == nil {
		secret.Annotations = map[string]string{}
	}
	secret.Annotations[AnnotationActive] = r.active
	delete(secret.Annotations, AnnotationPrevious)
	if r.previous != "" {
		secret.Annotations[AnnotationPrevious] = r.previous
	}
}

// Ensure returns the ring of the Secret key and the Secret as read or
// created: a Secret that does not exist is created with a new ring and
// meta's labels, annotations and owners. created tells which.
func Ensure(ctx context.Context, c client.Client, reader client.Reader, key types.NamespacedName, meta metav1.ObjectMeta) (ring *Ring, secret *corev1.Secret, created bool, err error) {
	secret = &corev1.Secret{}
	err = reader.Get(ctx, key, secret)
	if apierrors.IsNotFound(err) {
		if ring, secret, err = create(ctx, c, key, meta); !apierrors.IsAlreadyExists(err) {
			return ring, secret, err == nil, err
		}
		secret = &corev1.Secret{}
		err = reader.Get(ctx, key, secret) // another process created it first
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("reading the keys, Secret %s: %w", key, err)
	}
	ring, err = FromSecret(secret)
	return ring, secret, false, err
}

// create creates the Secret key with a new ring.
func create(ctx context.Context, c client.Client, key types.NamespacedName, meta metav1.ObjectMeta) (*Ring, *corev1.Secret, error) {
	ring, err := New()
	if err != nil {
		return nil, nil, err
	}
	meta.Namespace, meta.Name = key.Namespace, key.Name
	secret := &corev1.Secret{ObjectMeta: *meta.DeepCopy()}
	ring.Into(secret)
	if err := c.Create(ctx, secret); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("creating the keys, Secret %s: %w", key, err)
	}
	return ring, secret, nil
}
