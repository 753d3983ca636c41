package dashboard

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Options configure the page.
type Options struct {
	// Kinds are the component kinds to show; at least one.
	Kinds []schema.GroupVersionKind
	// Scheme, if it knows a kind, lets the page share the typed informer
	// the operator's controller already has instead of starting an
	// unstructured one.
	Scheme *runtime.Scheme
	// Auth checks viewers' tokens and decides what they see. Nil serves
	// every viewer everything in the cache, without a login: only for a
	// listener on 127.0.0.1 that serves the user's own credentials.
	Auth Authorizer
	// Title is the page's title (default "wavekit").
	Title string
	// Log receives errors; never a token or a Secret.
	Log logr.Logger
}

// New returns the page's handler. It registers event handlers on the
// informers of the component kinds and of Events in informers (a manager's
// cache: mgr.GetCache()), which must be started for the page to show
// anything; mapper finds the kinds' resources for access reviews.
func New(ctx context.Context, informers cache.Informers, mapper meta.RESTMapper, opts Options) (*Handler, error) {
	if len(opts.Kinds) == 0 {
		return nil, errors.New("dashboard: no component kind given")
	}
	if opts.Title == "" {
		opts.Title = "wavekit"
	}
	h := &Handler{opts: opts, live: newBroker(), renders: make(chan struct{}, maxConcurrentRenders)}
	h.store = newStore(opts.Log, h.live.publish)
	for _, gvk := range opts.Kinds {
		kind, err := lookupKind(mapper, gvk)
		if err != nil {
			return nil, err
		}
		if err := h.watch(ctx, informers, newObject(opts.Scheme, gvk), h.store.componentHandler(kind)); err != nil {
			return nil, err
		}
		h.kinds = append(h.kinds, kind)
	}
	if err := h.watch(ctx, informers, &corev1.Event{}, h.store.eventHandler()); err != nil {
		return nil, err
	}
	h.routes()
	return h, nil
}

// watch adds handler to the informer of obj's kind.
func (h *Handler) watch(ctx context.Context, informers cache.Informers, obj client.Object, handler toolscache.ResourceEventHandler) error {
	informer, err := informers.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("dashboard: the informer of %T: %w", obj, err)
	}
	if _, err := informer.AddEventHandler(handler); err != nil {
		return fmt.Errorf("dashboard: watching %T: %w", obj, err)
	}
	return nil
}

// lookupKind finds a kind's resource.
func lookupKind(mapper meta.RESTMapper, gvk schema.GroupVersionKind) (kindInfo, error) {
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return kindInfo{}, fmt.Errorf("dashboard: the resource of %s: %w", gvk, err)
	}
	key := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		key += "." + gvk.Group
	}
	return kindInfo{gvk: gvk, resource: mapping.Resource.Resource, key: key}, nil
}

// newObject is a typed object of the kind when the scheme knows it, else
// an unstructured one.
func newObject(scheme *runtime.Scheme, gvk schema.GroupVersionKind) client.Object {
	if scheme != nil && scheme.Recognizes(gvk) {
		if obj, err := scheme.New(gvk); err == nil {
			if o, ok := obj.(client.Object); ok {
				return o
			}
		}
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}
