package component

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

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The Secret that keeps a component's last Ready render: "<name>.<kind>.render"
// in the component's namespace, owned by the component (the garbage
// collector removes it with the component), its objects gzipped JSON.
const (
	RenderSecretType           corev1.SecretType = "wavekit.dev/render"
	renderSecretKey                              = "objects.json.gz"
	renderAnnotationDigest                       = "wavekit.dev/render-digest"
	renderAnnotationGeneration                   = "wavekit.dev/generation"
	// RenderLimit bounds a kept render, gzipped: a Secret holds 1 MiB.
	RenderLimit = 900 << 10
)

// renderStore writes and reads kept renders as the operator's identity, and
// remembers the last one of each component it read, so that a component
// that stays rolled back reads its Secret once.
type renderStore struct {
	client client.Client // writes
	reader client.Reader // reads, uncached: no informer on Secrets

	mu   sync.Mutex
	last map[types.NamespacedName]keptRender
}

func newRenderStore(c client.Client, reader client.Reader) *renderStore {
	return &renderStore{client: c, reader: reader, last: map[types.NamespacedName]keptRender{}}
}

// renderSecretName names the Secret of a component's last Ready render.
func renderSecretName(kind, name string) string {
	return keptSecretName(kind, name, "render")
}

// keptSecretName names a Secret that keeps something of a component,
// "<name>.<kind>.<what>"; a name too long for a Secret is cut and made
// unique by a hash of the whole.
func keptSecretName(kind, name, what string) string {
	full := name + "." + strings.ToLower(kind) + "." + what
	if len(full) <= 253 {
		return full
	}
	sum := sha256.Sum256([]byte(full))
	return full[:236] + "." + hex.EncodeToString(sum[:8])
}

// save keeps render as the last Ready render of component (of kind gvk),
// creating its Secret or updating the one it owns. It refuses a render
// larger than RenderLimit gzipped, and a Secret of that name that is not
// the component's.
func (s *renderStore) save(ctx context.Context, component client.Object, gvk schema.GroupVersionKind, generation int64, render keptRender) (string, error) {
	name := renderSecretName(gvk.Kind, component.GetName())
	secret, err := renderSecret(component, gvk, name, renderAnnotations(generation, render), render)
	if err != nil {
		return "", err
	}
	_, err = s.write(ctx, component, secret, "")
	return secret.Name, err
}

// write creates secret, or updates the one of its name the component owns,
// and returns the resourceVersion written. version is that of the Secret
// as this store last wrote or read it as the component's: it is updated at
// that version, and read again (and checked) only when it changed since.
func (s *renderStore) write(ctx context.Context, component client.Object, secret *corev1.Secret, version string) (string, error) {
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
func renderAnnotations(generation int64, render keptRender) map[string]string {
	return map[string]string{renderAnnotationDigest: render.digest, renderAnnotationGeneration: strconv.FormatInt(generation, 10)}
}

// replace updates the component's existing render Secret with secret.
func (s *renderStore) replace(ctx context.Context, component client.Object, secret *corev1.Secret) error {
	existing := &corev1.Secret{}
	if err := s.reader.Get(ctx, client.ObjectKeyFromObject(secret), existing); err != nil {
		return err
	}
	if existing.Type != RenderSecretType || !metav1.IsControlledBy(existing, component) {
		return fmt.Errorf("the Secret exists and is not this component's render (type %s): rename or remove it", existing.Type)
	}
	secret.ResourceVersion = existing.ResourceVersion
	return s.client.Update(ctx, secret)
}

// renderSecret is the Secret name that keeps render for component, with
// annotations, owned by the component.
func renderSecret(component client.Object, gvk schema.GroupVersionKind, name string, annotations map[string]string, render keptRender) (*corev1.Secret, error) {
	compressed, err := manifests.Compress(render.data)
	if err != nil {
		return nil, fmt.Errorf("keeping the render: %w", err)
	}
	if len(compressed) > RenderLimit {
		return nil, fmt.Errorf("the render takes %s gzipped, more than the %s a kept render may take", byteSize(len(compressed)), byteSize(RenderLimit))
	}
	controller := true
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: component.GetNamespace(), Name: name, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
				Name: component.GetName(), UID: component.GetUID(), Controller: &controller}},
		},
		Type: RenderSecretType,
		Data: map[string][]byte{renderSecretKey: compressed},
	}, nil
}

// load returns the objects of the kept render ref of component id, reading
// its Secret unless it is the one last read. A Secret whose
// objects do not have the recorded digest is refused.
func (s *renderStore) load(ctx context.Context, id types.NamespacedName, ref *StoredRender) ([]client.Object, error) {
	s.mu.Lock()
	render, ok := s.last[id]
	s.mu.Unlock()
	if !ok || render.digest != ref.RenderDigest {
		var err error
		if render, err = s.read(ctx, types.NamespacedName{Namespace: id.Namespace, Name: ref.Secret}, ref.RenderDigest); err != nil {
			return nil, err
		}
		s.remember(id, render)
	}
	return render.objects()
}

func (s *renderStore) read(ctx context.Context, key types.NamespacedName, digest string) (keptRender, error) {
	secret := &corev1.Secret{}
	if err := s.reader.Get(ctx, key, secret); err != nil {
		return keptRender{}, fmt.Errorf("reading the kept render, Secret %s: %w", key, err)
	}
	if secret.Type != RenderSecretType {
		return keptRender{}, fmt.Errorf("Secret %s is not a kept render (type %s)", key, secret.Type)
	}
	return renderIn(secret, digest)
}

// renderIn returns the render secret keeps, which must have digest.
func renderIn(secret *corev1.Secret, digest string) (keptRender, error) {
	key := client.ObjectKeyFromObject(secret)
	data, err := manifests.Decompress(secret.Data[renderSecretKey])
	if err != nil {
		return keptRender{}, fmt.Errorf("reading the kept render, Secret %s: %w", key, err)
	}
	got, err := digestOf(data)
	if err != nil {
		return keptRender{}, fmt.Errorf("reading the kept render, Secret %s: %w", key, err)
	}
	if got != digest {
		return keptRender{}, fmt.Errorf("Secret %s holds render %s, not %s: it was changed", key, got, digest)
	}
	return keptRender{digest: digest, data: data}, nil
}

func (s *renderStore) remember(id types.NamespacedName, render keptRender) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last[id] = render
}

func (s *renderStore) forget(id types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.last, id)
}
