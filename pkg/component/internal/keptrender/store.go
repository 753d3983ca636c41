package keptrender

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A kept render's Secret: its type, and the annotations that say what it
// holds (its digest, the generation it is of).
const (
	SecretType           corev1.SecretType = "wavekit.dev/render"
	annotationDigest                       = "wavekit.dev/render-digest"
	annotationGeneration                   = "wavekit.dev/generation"
	// Limit bounds a kept render, gzipped and sealed: a Secret holds 1 MiB.
	Limit = 900 << 10
)

// Store writes and reads the last Ready renders of components, as the
// operator's identity, and remembers the last one of each component it
// read, so that a component that stays rolled back reads its Secret once.
type Store struct {
	client client.Client // writes
	reader client.Reader // reads, uncached: no informer on Secrets
	keys   *Keys

	mu   sync.Mutex
	last map[types.NamespacedName]Render
	// sealedWith is the key of each component's last Ready render, as
	// last written or read.
	sealedWith map[types.NamespacedName]string
}

// NewStore returns a store that writes with c, reads with reader and seals
// with keys.
func NewStore(c client.Client, reader client.Reader, keys *Keys) *Store {
	return &Store{client: c, reader: reader, keys: keys,
		last: map[types.NamespacedName]Render{}, sealedWith: map[types.NamespacedName]string{}}
}

// SecretName names a Secret that keeps something of a component,
// "<name>.<kind>.<what>"; a name too long for a Secret is cut and made
// unique by a hash of the whole.
func SecretName(kind, name, what string) string {
	full := name + "." + strings.ToLower(kind) + "." + what
	if len(full) <= 253 {
		return full
	}
	sum := sha256.Sum256([]byte(full))
	return full[:236] + "." + hex.EncodeToString(sum[:8])
}

// Save keeps render as the last Ready render of component (of kind gvk) at
// generation, creating its Secret or updating the one it owns, and returns
// the Secret's name. It refuses a render larger than Limit, and a Secret
// of that name that is not the component's.
func (s *Store) Save(ctx context.Context, component client.Object, gvk schema.GroupVersionKind, generation int64, render Render) (string, error) {
	name := SecretName(gvk.Kind, component.GetName(), "render")
	secret := renderSecret(component, gvk, name, renderAnnotations(generation, render))
	if err := s.keys.sealInto(ctx, secret, render); err != nil {
		return "", err
	}
	if _, err := s.write(ctx, component, secret, ""); err != nil {
		return "", err
	}
	s.remember(idOf(component), render, secret.Annotations[annotationKey])
	return secret.Name, nil
}

// write creates secret, or updates the one of its name the component owns,
// and returns the resourceVersion written. version is that of the Secret
// as this store last wrote or read it as the component's: it is updated at
// that version, and read again (and checked) only when it changed since.
func (s *Store) write(ctx context.Context, component client.Object, secret *corev1.Secret, version string) (string, error) {
	var err error
	if version != "" {
		secret.ResourceVersion = version
		err = s.client.Update(ctx, secret)
	}
	if version == "" || apierrors.IsNotFound(err) {
		secret.ResourceVersion = ""
		err = s.client.Create(ctx, secret)
	}
	if apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) {
		err = s.replace(ctx, component, secret)
	}
	if err != nil {
		return "", fmt.Errorf("keeping the render in Secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	return secret.ResourceVersion, nil
}

// renderAnnotations are the annotations of a kept render's Secret: its
// digest and the generation it is of.
func renderAnnotations(generation int64, render Render) map[string]string {
	return map[string]string{annotationDigest: render.Digest, annotationGeneration: strconv.FormatInt(generation, 10)}
}

// replace updates the component's existing render Secret with secret.
func (s *Store) replace(ctx context.Context, component client.Object, secret *corev1.Secret) error {
	existing := &corev1.Secret{}
	if err := s.reader.Get(ctx, client.ObjectKeyFromObject(secret), existing); err != nil {
		return err
	}
	if existing.Type != SecretType || !metav1.IsControlledBy(existing, component) {
		return fmt.Errorf("the Secret exists and is not this component's render (type %s): rename or remove it", existing.Type)
	}
	secret.ResourceVersion = existing.ResourceVersion
	return s.client.Update(ctx, secret)
}

// renderSecret is the Secret name, with annotations, owned by component,
// that sealInto fills with a render.
func renderSecret(component client.Object, gvk schema.GroupVersionKind, name string, annotations map[string]string) *corev1.Secret {
	controller := true
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: component.GetNamespace(), Name: name, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
				Name: component.GetName(), UID: component.GetUID(), Controller: &controller}},
		},
		Type: SecretType,
	}
}

// Load returns the objects of the last Ready render of component id, kept
// in Secret secretName with digest, reading the Secret unless it is the
// one last read. A Secret whose objects do not have that digest, or do not
// open, is refused (UnreadableError).
func (s *Store) Load(ctx context.Context, id types.NamespacedName, secretName, digest string) ([]client.Object, error) {
	s.mu.Lock()
	render, ok := s.last[id]
	s.mu.Unlock()
	if !ok || render.Digest != digest {
		secret, err := s.read(ctx, types.NamespacedName{Namespace: id.Namespace, Name: secretName})
		if err != nil {
			return nil, err
		}
		opened, err := s.keys.renderIn(ctx, secret, digest)
		if err != nil {
			return nil, err
		}
		render = opened.render
		s.remember(id, render, opened.key)
		if opened.plaintext {
			// Kept by an operator before sealing: sealed once, and read
			// as it is when that fails (it is tried again at the next read).
			_ = s.seal(ctx, id, secret, render)
		}
	}
	return render.Objects()
}

// Reseal seals the last Ready render of component id, kept in Secret
// secretName with digest, again with the active key, when a rotation made
// a new one since this store last wrote or read it.
func (s *Store) Reseal(ctx context.Context, id types.NamespacedName, secretName, digest string) error {
	s.mu.Lock()
	sealedWith := s.sealedWith[id]
	s.mu.Unlock()
	if s.keys.Rotations() == 0 || sealedWith == s.keys.Active() {
		return nil
	}
	secret, err := s.read(ctx, types.NamespacedName{Namespace: id.Namespace, Name: secretName})
	if err == nil {
		var kept opened
		if kept, err = s.keys.renderIn(ctx, secret, digest); err == nil {
			err = s.seal(ctx, id, secret, kept.render)
		}
	}
	if err != nil {
		s.mu.Lock()
		s.sealedWith[id] = s.keys.Active() // tried once for each rotation
		s.mu.Unlock()
	}
	return err
}

// seal writes secret again with render sealed with the active key: a
// render kept in plaintext, or sealed with a key a rotation replaced.
func (s *Store) seal(ctx context.Context, id types.NamespacedName, secret *corev1.Secret, render Render) error {
	if err := s.keys.sealInto(ctx, secret, render); err != nil {
		return err
	}
	if err := s.client.Update(ctx, secret); err != nil {
		return fmt.Errorf("sealing the kept render in Secret %s/%s again: %w", secret.Namespace, secret.Name, err)
	}
	s.remember(id, render, secret.Annotations[annotationKey])
	return nil
}

// read reads a kept render's Secret.
func (s *Store) read(ctx context.Context, key types.NamespacedName) (*corev1.Secret, error) {
	secret := &corev1.Secret{}
	if err := s.reader.Get(ctx, key, secret); err != nil {
		return nil, fmt.Errorf("reading the kept render, Secret %s: %w", key, err)
	}
	if secret.Type != SecretType {
		return nil, fmt.Errorf("Secret %s is not a kept render (type %s)", key, secret.Type)
	}
	return secret, nil
}

func (s *Store) remember(id types.NamespacedName, render Render, key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last[id] = render
	s.sealedWith[id] = key
}

// Forget drops what the store remembers of component id.
func (s *Store) Forget(id types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.last, id)
	delete(s.sealedWith, id)
}

func idOf(o client.Object) types.NamespacedName {
	return types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
}
