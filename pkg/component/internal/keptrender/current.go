package keptrender

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The Secret that keeps a component's current render,
// "<name>.<kind>.current-render", beside the last Ready render's: the
// digest of the inputs it was rendered from and where the generator said
// it came from are annotations.
const (
	currentRenderSecret = "current-render"
	annotationInputs    = "wavekit.dev/inputs-digest"
	annotationSource    = "wavekit.dev/source"
)

// Current is the render a component's objects are applied from: the
// objects (encoded), the digest of the inputs they were rendered from,
// and their source as the generator reported it.
type Current struct {
	Inputs string
	Render Render
	Source *manifests.SourceInfo
	// NotKept says why its Secret does not hold it, when it does not: the
	// component is applied from memory, and rendered again after a
	// restart.
	NotKept string
	// RenderedAgain says why it was rendered although a render of its
	// inputs was kept (UnreadableError), for as long as it is current.
	RenderedAgain string
}

// Currents keeps each component's current render, so that a pass whose
// inputs did not change applies the same objects instead of rendering
// again: in memory, and sealed in a Secret of the component's namespace
// that a restarted operator, or the shard that takes the component over,
// reads back once.
type Currents struct {
	store *Store

	mu   sync.Mutex
	byID map[types.NamespacedName]currentEntry
}

// currentEntry is a component's current render in memory, the generation
// it was kept at and the key that sealed it, and the resourceVersion of
// its Secret as last written or read as the component's ("" when unknown),
// so that a new render updates it at once.
type currentEntry struct {
	Current
	generation    int64
	sealedWith    string
	secretVersion string
}

// NewCurrents returns the current renders, kept with store's clients and
// keys.
func NewCurrents(store *Store) *Currents {
	return &Currents{store: store, byID: map[types.NamespacedName]currentEntry{}}
}

// Lookup is what a pass knows of the render it looks for.
type Lookup struct {
	// Inputs is the digest of the inputs of the render.
	Inputs string
	// MayBeKept says whether a Secret may keep one: not before the
	// component's first attempt (so a new component costs no read).
	MayBeKept bool
	// Applied is the digest of the render the component's status says is
	// being applied (its attempt's): a render kept in plaintext (by an
	// operator before sealing) is taken only when it is that one, since
	// anyone who may write the Secret could have written it.
	Applied string
	// LastGood is the digest of the last Ready render the status names,
	// "" for none: one kept in plaintext beside the current render is
	// sealed when it is that one.
	LastGood string
}

// Get returns the current render of component id (of kind gvk) when it was
// rendered from the inputs of look: from memory, else from its Secret.
// found is false when there is none of those inputs. err is an
// *UnreadableError when the Secret holds a render of those inputs that
// cannot be applied (render again, and say why), else a failed read. A
// render sealed with a key that a rotation replaced is sealed again, and
// one kept in plaintext is sealed.
func (c *Currents) Get(ctx context.Context, id types.NamespacedName, component client.Object, gvk schema.GroupVersionKind, look Lookup) (Current, bool, error) {
	c.mu.Lock()
	entry, ok := c.byID[id]
	c.mu.Unlock()
	switch {
	case ok && entry.Inputs == look.Inputs:
		if active := c.store.keys.Active(); entry.secretVersion != "" && entry.sealedWith != "" && entry.sealedWith != active && active != "" {
			c.Keep(ctx, id, component, gvk, entry.generation, entry.Current) // a rotation made a new key
		}
		return entry.Current, true, nil
	case ok && entry.secretVersion != "":
		return Current{}, false, nil // the Secret holds the render in memory, of other inputs
	case !look.MayBeKept:
		return Current{}, false, nil
	}
	return c.fromSecret(ctx, id, component, gvk, look)
}

// fromSecret is Get of a render not in memory: read from its Secret, and
// remembered.
func (c *Currents) fromSecret(ctx context.Context, id types.NamespacedName, component client.Object, gvk schema.GroupVersionKind, look Lookup) (Current, bool, error) {
	secret := &corev1.Secret{}
	key := types.NamespacedName{Namespace: component.GetNamespace(), Name: SecretName(gvk.Kind, component.GetName(), currentRenderSecret)}
	if err := c.store.reader.Get(ctx, key, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return Current{}, false, nil
		}
		return Current{}, false, fmt.Errorf("reading the current render, Secret %s: %w", key, err)
	}
	if secret.Type != SecretType || !metav1.IsControlledBy(secret, component) {
		c.remember(id, currentEntry{})
		return Current{}, false, nil
	}
	entry := currentEntry{secretVersion: secret.ResourceVersion}
	if _, plaintext := secret.Data[dataPlaintext]; plaintext {
		c.sealLastGood(ctx, id, component, gvk, look.LastGood) // kept by an operator before sealing
	}
	if secret.Annotations[annotationInputs] != look.Inputs {
		c.remember(id, entry)
		return Current{}, false, nil // rendered again, and kept sealed
	}
	cur, opened, err := c.currentIn(ctx, secret)
	if err == nil && opened.plaintext && cur.Render.Digest != look.Applied {
		err = &UnreadableError{Secret: key.String(), Err: fmt.Errorf("it is kept in plaintext, and is not the render %q the status says is applied: "+
			"an operator before sealing did not write it", look.Applied)}
	}
	var unreadable *UnreadableError
	if errors.As(err, &unreadable) {
		c.remember(id, entry) // rendered again, and kept sealed
	}
	if err != nil {
		return Current{}, false, err // else read again by the retry
	}
	entry.Current, entry.sealedWith = cur, opened.key
	entry.generation, _ = strconv.ParseInt(secret.Annotations[annotationGeneration], 10, 64)
	c.remember(id, entry)
	if opened.plaintext {
		c.Keep(ctx, id, component, gvk, entry.generation, entry.Current) // sealed, once
	}
	return cur, true, nil
}

// currentIn returns the current render that secret keeps.
func (c *Currents) currentIn(ctx context.Context, secret *corev1.Secret) (Current, opened, error) {
	opened, err := c.store.keys.renderIn(ctx, secret, secret.Annotations[annotationDigest])
	if err != nil {
		return Current{}, opened, err
	}
	cur := Current{Inputs: secret.Annotations[annotationInputs], Render: opened.render}
	if source := secret.Annotations[annotationSource]; source != "" {
		if err := json.Unmarshal([]byte(source), &cur.Source); err != nil {
			return Current{}, opened, &UnreadableError{Secret: client.ObjectKeyFromObject(secret).String(), Err: fmt.Errorf("its source: %w", err)}
		}
	}
	return cur, opened, nil
}

// sealLastGood seals, once, the last Ready render of digest that an
// operator before sealing kept in plaintext beside the current render.
// What fails stays as it was, and is tried again when a rollback reads it.
func (c *Currents) sealLastGood(ctx context.Context, id types.NamespacedName, component client.Object, gvk schema.GroupVersionKind, digest string) {
	if digest == "" {
		return
	}
	name := SecretName(gvk.Kind, component.GetName(), "render")
	secret := &corev1.Secret{}
	if err := c.store.reader.Get(ctx, types.NamespacedName{Namespace: id.Namespace, Name: name}, secret); err != nil {
		return
	}
	if _, sealed := secret.Data[dataSealed]; sealed || secret.Type != SecretType || !metav1.IsControlledBy(secret, component) {
		return
	}
	if opened, err := c.store.keys.renderIn(ctx, secret, digest); err == nil {
		_ = c.store.seal(ctx, id, secret, opened.render)
	}
}

// Keep makes cur the current render of component id (at generation): in
// memory in any case, and sealed in its Secret. It returns cur, whose
// NotKept says why the Secret does not hold it (too large, refused, no
// key).
func (c *Currents) Keep(ctx context.Context, id types.NamespacedName, component client.Object, gvk schema.GroupVersionKind, generation int64, cur Current) Current {
	c.mu.Lock()
	version := c.byID[id].secretVersion
	c.mu.Unlock()
	cur.NotKept = ""
	entry := currentEntry{Current: cur, generation: generation}
	secret, err := currentSecretOf(component, gvk, generation, cur)
	if err == nil {
		err = c.store.keys.sealInto(ctx, secret, cur.Render)
	}
	if err == nil {
		entry.secretVersion, err = c.store.write(ctx, component, secret, version)
		entry.sealedWith = secret.Annotations[annotationKey]
	}
	if err != nil {
		entry.NotKept = "the render is kept in memory only, and a restarted operator renders it again: " + err.Error()
		entry.secretVersion, entry.sealedWith = "", ""
	}
	c.remember(id, entry)
	return entry.Current
}

// currentSecretOf is the Secret that keeps cur for component, without its
// objects.
func currentSecretOf(component client.Object, gvk schema.GroupVersionKind, generation int64, cur Current) (*corev1.Secret, error) {
	annotations := renderAnnotations(generation, cur.Render)
	annotations[annotationInputs] = cur.Inputs
	if cur.Source != nil {
		source, err := json.Marshal(cur.Source)
		if err != nil {
			return nil, fmt.Errorf("encoding the render's source: %w", err)
		}
		annotations[annotationSource] = string(source)
	}
	name := SecretName(gvk.Kind, component.GetName(), currentRenderSecret)
	return renderSecret(component, gvk, name, annotations), nil
}

// IDs are the components whose current render is in memory.
func (c *Currents) IDs() []types.NamespacedName {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]types.NamespacedName, 0, len(c.byID))
	for id := range c.byID {
		out = append(out, id)
	}
	return out
}

func (c *Currents) remember(id types.NamespacedName, entry currentEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byID[id] = entry
}

// Forget drops the current render of component id from memory.
func (c *Currents) Forget(id types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byID, id)
}
