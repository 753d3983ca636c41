package component

import (
	"context"
	"encoding/json"
	"fmt"
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
	currentRenderSecret    = "current-render"
	renderAnnotationInputs = "wavekit.dev/inputs-digest"
	renderAnnotationSource = "wavekit.dev/source"
)

// currentRender is the render a component's objects are applied from: the
// objects (encoded), the digest of the inputs they were rendered from
// (renderInputs), and their source as the generator reported it.
type currentRender struct {
	inputs string
	render keptRender
	source *manifests.SourceInfo
	// notKept says why its Secret does not hold it, when it does not: the
	// component is applied from memory, and rendered again after a
	// restart.
	notKept string
}

// currentRenders keeps each component's current render, so that a pass
// whose inputs did not change applies the same objects instead of
// rendering again: in memory, and in a Secret of the component's
// namespace that a restarted operator, or the shard that takes the
// component over, reads back once.
type currentRenders struct {
	store *renderStore

	mu   sync.Mutex
	byID map[types.NamespacedName]currentEntry
}

// currentEntry is a component's current render in memory, and the
// resourceVersion of its Secret as last written or read as the
// component's ("" when unknown), so that a new render updates it at once.
type currentEntry struct {
	currentRender
	secretVersion string
}

func newCurrentRenders(store *renderStore) *currentRenders {
	return &currentRenders{store: store, byID: map[types.NamespacedName]currentEntry{}}
}

// get returns the current render of component id when it was rendered from
// inputs: from memory, else from its Secret when stored says there may be
// one. found is false when there is none of those inputs; err is a failed
// read of the Secret.
func (c *currentRenders) get(ctx context.Context, id types.NamespacedName, component client.Object, gvk schema.GroupVersionKind, inputs string, stored bool) (currentRender, bool, error) {
	c.mu.Lock()
	entry, ok := c.byID[id]
	c.mu.Unlock()
	switch {
	case ok && entry.inputs == inputs:
		return entry.currentRender, true, nil
	case ok && entry.secretVersion != "":
		return currentRender{}, false, nil // the Secret holds the render in memory, of other inputs
	case !stored:
		return currentRender{}, false, nil
	}
	secret := &corev1.Secret{}
	key := types.NamespacedName{Namespace: component.GetNamespace(), Name: keptSecretName(gvk.Kind, component.GetName(), currentRenderSecret)}
	if err := c.store.reader.Get(ctx, key, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return currentRender{}, false, nil
		}
		return currentRender{}, false, fmt.Errorf("reading the current render, Secret %s: %w", key, err)
	}
	cur, ours := currentRenderIn(secret, component)
	version := ""
	if ours {
		version = secret.ResourceVersion
	}
	if !ours || cur.inputs != inputs {
		c.remember(id, currentEntry{secretVersion: version})
		return currentRender{}, false, nil
	}
	c.remember(id, currentEntry{currentRender: cur, secretVersion: version})
	return cur, true, nil
}

// currentRenderIn returns the current render that secret keeps, and
// whether secret is component's current render at all. A Secret whose
// objects do not have their recorded digest keeps nothing.
func currentRenderIn(secret *corev1.Secret, component client.Object) (currentRender, bool) {
	if secret.Type != RenderSecretType || !metav1.IsControlledBy(secret, component) {
		return currentRender{}, false
	}
	render, err := renderIn(secret, secret.Annotations[renderAnnotationDigest])
	if err != nil {
		return currentRender{}, true
	}
	cur := currentRender{inputs: secret.Annotations[renderAnnotationInputs], render: render}
	if source := secret.Annotations[renderAnnotationSource]; source != "" {
		if err := json.Unmarshal([]byte(source), &cur.source); err != nil {
			return currentRender{}, true
		}
	}
	return cur, true
}

// keep makes cur the current render of component id (at generation): in
// memory in any case, and in its Secret. It returns cur, whose notKept
// says why the Secret does not hold it (too large, refused).
func (c *currentRenders) keep(ctx context.Context, id types.NamespacedName, component client.Object, gvk schema.GroupVersionKind, generation int64, cur currentRender) currentRender {
	c.mu.Lock()
	version := c.byID[id].secretVersion
	c.mu.Unlock()
	secret, err := currentRenderSecretOf(component, gvk, generation, cur)
	if err == nil {
		version, err = c.store.write(ctx, component, secret, version)
	}
	if err != nil {
		cur.notKept = "the render is kept in memory only, and a restarted operator renders it again: " + err.Error()
	}
	c.remember(id, currentEntry{currentRender: cur, secretVersion: version})
	return cur
}

// currentRenderSecretOf is the Secret that keeps cur for component.
func currentRenderSecretOf(component client.Object, gvk schema.GroupVersionKind, generation int64, cur currentRender) (*corev1.Secret, error) {
	annotations := renderAnnotations(generation, cur.render)
	annotations[renderAnnotationInputs] = cur.inputs
	if cur.source != nil {
		source, err := json.Marshal(cur.source)
		if err != nil {
			return nil, fmt.Errorf("encoding the render's source: %w", err)
		}
		annotations[renderAnnotationSource] = string(source)
	}
	name := keptSecretName(gvk.Kind, component.GetName(), currentRenderSecret)
	return renderSecret(component, gvk, name, annotations, cur.render)
}

func (c *currentRenders) remember(id types.NamespacedName, entry currentEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byID[id] = entry
}

func (c *currentRenders) forget(id types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byID, id)
}
