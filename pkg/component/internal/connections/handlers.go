package connections

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// Handlers share one event handler on each informer of a connection
// between the Reconcilers that watch its kind there. A handler on an
// informer is a listener of two goroutines and a ring buffer of 16 KiB;
// fifty served kinds that each watch ConfigMaps of one cluster held fifty
// of them on one informer.
type Handlers struct {
	mu    sync.Mutex
	byKey map[handlersKey]*fanOut
}

type handlersKey struct {
	target *engine.CachedTarget
	kind   schema.GroupVersionKind
}

// NewHandlers returns handlers with no informer yet.
func NewHandlers() *Handlers { return &Handlers{byKey: map[handlersKey]*fanOut{}} }

// Add adds h to the handlers of the informer of kind in target's cache,
// and returns what removes it. The first handler of an informer is
// registered on it, which tells it of every object the informer holds, as
// listed; a later one is told the same from the cache, as a handler added
// late to the informer itself would be. An event may then reach h twice,
// or an object's Add after its Update. The members are called one after
// the other, from the informer's one listener: a handler must not block.
func (hs *Handlers) Add(ctx context.Context, target *engine.CachedTarget, kind schema.GroupVersionKind, h toolscache.ResourceEventHandler) (func() error, error) {
	key := handlersKey{target: target, kind: kind}
	m := &member{handler: h}
	hs.mu.Lock()
	f, shared := hs.byKey[key]
	if !shared {
		f = &fanOut{}
		f.add(m)
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(kind)
		informer, err := target.Cache.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
		if err == nil {
			f.informer = informer
			f.registration, err = informer.AddEventHandler(f)
		}
		if err != nil {
			hs.mu.Unlock()
			return nil, fmt.Errorf("watching %s: %w", kind, err)
		}
		hs.byKey[key] = f
	} else {
		f.add(m)
	}
	hs.mu.Unlock()
	remove := func() error { return hs.remove(key, f, m) }
	if shared && f.informer.HasSynced() {
		if err := replay(ctx, target, kind, h); err != nil {
			return nil, errors.Join(err, remove())
		}
	}
	return remove, nil
}

// replay tells h of every object of kind the cache holds, as listed. An
// informer that has not synced yet tells its members of what it lists as
// it lists it: h hears of what comes after it joined.
func replay(ctx context.Context, target *engine.CachedTarget, kind schema.GroupVersionKind, h toolscache.ResourceEventHandler) error {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(kind.GroupVersion().WithKind(kind.Kind + "List"))
	if err := target.Cache.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return fmt.Errorf("watching %s: the objects its informer holds: %w", kind, err)
	}
	for i := range list.Items {
		h.OnAdd(&list.Items[i], true)
	}
	return nil
}

// remove takes m out of f; the last one out takes f off its informer.
func (hs *Handlers) remove(key handlersKey, f *fanOut, m *member) error {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if !f.remove(m) || f.size() > 0 {
		return nil
	}
	if hs.byKey[key] == f {
		delete(hs.byKey, key)
	}
	return f.informer.RemoveEventHandler(f.registration)
}

// fanOut is one handler on an informer that calls its members' handlers,
// in the order they joined.
type fanOut struct {
	informer     cache.Informer
	registration toolscache.ResourceEventHandlerRegistration
	members      atomic.Pointer[[]*member] // replaced, never changed
}

type member struct {
	handler toolscache.ResourceEventHandler
}

// add and remove run under Handlers.mu.
func (f *fanOut) add(m *member) {
	next := append(slices.Clone(f.current()), m)
	f.members.Store(&next)
}

func (f *fanOut) remove(m *member) bool {
	current := f.current()
	i := slices.Index(current, m)
	if i < 0 {
		return false
	}
	next := slices.Delete(slices.Clone(current), i, i+1)
	f.members.Store(&next)
	return true
}

func (f *fanOut) size() int { return len(f.current()) }

func (f *fanOut) current() []*member {
	if p := f.members.Load(); p != nil {
		return *p
	}
	return nil
}

func (f *fanOut) OnAdd(obj any, listed bool) {
	for _, m := range f.current() {
		m.handler.OnAdd(obj, listed)
	}
}

func (f *fanOut) OnUpdate(old, obj any) {
	for _, m := range f.current() {
		m.handler.OnUpdate(old, obj)
	}
}

func (f *fanOut) OnDelete(obj any) {
	for _, m := range f.current() {
		m.handler.OnDelete(obj)
	}
}
