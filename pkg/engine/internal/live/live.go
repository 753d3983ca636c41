package live

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/expiry"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Reader reads the current state of objects that carry the owner label.
// In an operator it is an informer cache restricted to that label (informers
// start on demand, one per kind); in the CLI a direct client does.
type Reader interface {
	Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error
}

// Objects reads through a Reader but remembers what the applier
// itself wrote, so a cache that has not caught up yet never causes a second
// write: the written object is served until the cache holds that version or a
// newer one.
type Objects struct {
	reader Reader
	direct client.Reader // confirms a cache miss for an object the applier wrote

	probes *Probes
	// mu makes each step over written and tombstones together one.
	mu sync.Mutex
	// written are the objects the applier wrote, as the API server returned
	// them, until the cache holds that version or Memory has passed.
	written *expiry.Map[manifests.ObjectKey, *unstructured.Unstructured]
	// tombstones are the UIDs of the objects the applier deleted, until the
	// cache sees them go or Memory has passed.
	tombstones *expiry.Map[manifests.ObjectKey, types.UID]
}

// Memory is how long Objects serves what it remembers of a write or
// a deletion when the cache has not caught up: far longer than a cache
// lags.
const Memory = time.Minute

// New returns the live objects of reader, with direct for what it must
// confirm with the API server. The Objects of one reader may share their
// probes (nil: probes of its own).
func New(reader Reader, direct client.Reader, now func() time.Time, probes *Probes) *Objects {
	if probes == nil {
		probes = NewProbes()
	}
	return &Objects{
		reader: reader, direct: direct, probes: probes,
		written:    expiry.New[manifests.ObjectKey, *unstructured.Unstructured](Memory, now),
		tombstones: expiry.New[manifests.ObjectKey, types.UID](Memory, now),
	}
}

// Get returns the live object, or nil when it does not exist.
func (l *Objects) Get(ctx context.Context, gvk schema.GroupVersionKind, key manifests.ObjectKey) (*unstructured.Unstructured, error) {
	return l.lookup(ctx, gvk, key)
}

// GetShared is get without the copy of the cached object: what it returns
// may be the informer cache's own object, which the caller only reads and
// copies before it changes or writes it. Most passes change no object, and
// copying each one they read was a tenth of a no-op pass.
func (l *Objects) GetShared(ctx context.Context, gvk schema.GroupVersionKind, key manifests.ObjectKey) (*unstructured.Unstructured, error) {
	return l.lookup(ctx, gvk, key, client.UnsafeDisableDeepCopy)
}

func (l *Objects) lookup(ctx context.Context, gvk schema.GroupVersionKind, key manifests.ObjectKey, opts ...client.GetOption) (*unstructured.Unstructured, error) {
	if err := l.Probe(ctx, gvk, key.Namespace); err != nil {
		return nil, err
	}
	cached, err := Read(ctx, l.reader, gvk, key, opts...)
	if err != nil {
		return nil, err
	}
	if cached == nil && l.remembers(key) {
		// The cache lags behind our write, or the object was deleted since:
		// only the API server can tell.
		return l.confirm(ctx, gvk, key)
	}
	return l.newest(key, cached), nil
}

// Probe lists gvk once, directly, before the cache starts an informer for
// it: an informer that may not list (RBAC, impersonation) would otherwise
// wait for its first sync forever instead of saying so. A reader scoped to
// some namespaces lists there, where its informers do; an object outside
// them is read directly and needs no probe.
func (l *Objects) Probe(ctx context.Context, gvk schema.GroupVersionKind, namespace string) error {
	if l.direct == nil {
		return nil
	}
	scope := Scope(l.reader)
	if namespace != "" && len(scope) > 0 && !slices.Contains(scope, namespace) {
		return nil
	}
	namespaces := []string{""}
	if namespace != "" && len(scope) > 0 {
		namespaces = scope
	}
	return l.probes.once(ctx, gvk, func() error { return l.list(ctx, gvk, namespaces) })
}

// Probes remembers the kinds that were probed, for every Objects of one
// reader: the appliers of one shared target list each kind once.
type Probes struct {
	mu    sync.Mutex
	calls map[schema.GroupVersionKind]*probeCall // in flight, or succeeded
}

// NewProbes returns a memory of no probe.
func NewProbes() *Probes {
	return &Probes{calls: map[schema.GroupVersionKind]*probeCall{}}
}

// once runs list for gvk unless it ran or runs: the first caller lists; the
// callers that come meanwhile wait for its answer instead of listing too. A
// failure is forgotten, so that a later pass asks again (RBAC may have
// changed).
func (p *Probes) once(ctx context.Context, gvk schema.GroupVersionKind, list func() error) error {
	p.mu.Lock()
	call, started := p.calls[gvk]
	if !started {
		call = &probeCall{done: make(chan struct{})}
		p.calls[gvk] = call
	}
	p.mu.Unlock()
	if started {
		select {
		case <-call.done:
			return call.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	call.err = list()
	if call.err != nil {
		p.mu.Lock()
		delete(p.calls, gvk)
		p.mu.Unlock()
	}
	close(call.done)
	return call.err
}

// probeCall is one probe of a kind, shared by the callers that need it.
type probeCall struct {
	done chan struct{}
	err  error
}

func (l *Objects) list(ctx context.Context, gvk schema.GroupVersionKind, namespaces []string) error {
	for _, ns := range namespaces {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := l.direct.List(ctx, list, client.Limit(1), client.InNamespace(ns)); err != nil {
			return fmt.Errorf("%s must be listed and watched %s to track applied objects: %w", gvk.Kind, Where(ns), err)
		}
	}
	return nil
}

// Where says where a list goes, for a message: "cluster-wide" or "in
// namespace ns".
func Where(namespace string) string {
	if namespace == "" {
		return "cluster-wide"
	}
	return "in namespace " + namespace
}

// Read reads the object of key from reader.
func Read(ctx context.Context, reader Reader, gvk schema.GroupVersionKind, key manifests.ObjectKey, opts ...client.GetOption) (*unstructured.Unstructured, error) {
	// The kind as SetGroupVersionKind leaves it, in one map of two entries:
	// every object of every pass is read here.
	apiVersion, kind := gvk.GroupVersion().String(), gvk.Kind
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	err := reader.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: key.Name}, obj, opts...)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", key, err)
	}
	return obj, nil
}

func (l *Objects) remembers(key manifests.ObjectKey) bool {
	_, ok := l.written.Get(key)
	return ok
}

func (l *Objects) confirm(ctx context.Context, gvk schema.GroupVersionKind, key manifests.ObjectKey) (*unstructured.Unstructured, error) {
	obj, err := Read(ctx, l.direct, gvk, key)
	if err != nil {
		return nil, err
	}
	if obj == nil {
		l.Forget(key)
		return nil, nil
	}
	// The API server has caught up, the cache has not: the written copy
	// stays until the cache holds it, else the next read of the lagging
	// cache would find nothing and take the object for gone.
	l.mu.Lock()
	defer l.mu.Unlock()
	if uid, ok := l.tombstones.Get(key); ok && obj.GetUID() == uid {
		return markedDeleted(obj), nil
	}
	if w, ok := l.written.Get(key); ok && olderThan(obj, w) {
		return w.DeepCopy(), nil
	}
	return obj, nil
}

// olderThan tells whether a is an older version of the object than b.
func olderThan(a, b *unstructured.Unstructured) bool {
	cmp, err := resourceversion.CompareResourceVersion(a.GetResourceVersion(), b.GetResourceVersion())
	return err == nil && cmp < 0
}

func (l *Objects) newest(key manifests.ObjectKey, cached *unstructured.Unstructured) *unstructured.Unstructured {
	l.mu.Lock()
	defer l.mu.Unlock()
	if uid, ok := l.tombstones.Get(key); ok {
		if cached != nil && cached.GetUID() == uid {
			return markedDeleted(cached)
		}
		l.tombstones.Delete(key)
	}
	w, ok := l.written.Get(key)
	if !ok {
		return cached
	}
	if cached == nil {
		return w.DeepCopy()
	}
	cmp, err := resourceversion.CompareResourceVersion(cached.GetResourceVersion(), w.GetResourceVersion())
	if err != nil || cmp >= 0 {
		l.written.Delete(key)
		return cached
	}
	return w.DeepCopy()
}

// Remember records an object the applier has just written, as the API
// server returned it. It keeps obj itself, without managedFields (as the
// cache does), and hands out copies: the caller must not change obj later.
func (l *Objects) Remember(key manifests.ObjectKey, obj *unstructured.Unstructured) {
	obj.SetManagedFields(nil)
	l.written.Put(key, obj)
}

// Deleted records that the applier deleted the object with uid; until the
// cache sees it go, it reads as being deleted.
func (l *Objects) Deleted(key manifests.ObjectKey, uid types.UID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.written.Delete(key)
	l.tombstones.Put(key, uid)
}

// Undelete drops the record that the applier deleted the object of key with
// uid: the deletion failed.
func (l *Objects) Undelete(key manifests.ObjectKey, uid types.UID) {
	l.Gone(key, uid)
}

// Gone records that the cache no longer holds the object of key with uid (a
// delete event): its tombstone has served.
func (l *Objects) Gone(key manifests.ObjectKey, uid types.UID) {
	l.tombstones.DeleteIf(key, func(deleted types.UID) bool { return deleted == uid })
}

// CaughtUp drops the copy of key written at resourceVersion: the cache
// holds that version now.
func (l *Objects) CaughtUp(key manifests.ObjectKey, resourceVersion string) {
	l.written.DeleteIf(key, func(w *unstructured.Unstructured) bool { return w.GetResourceVersion() == resourceVersion })
}

// DeletedHere tells whether the applier deleted the object of key and the
// cache has not yet been seen without it.
func (l *Objects) DeletedHere(key manifests.ObjectKey) bool {
	_, ok := l.tombstones.Get(key)
	return ok
}

// Forget drops what was remembered for key.
func (l *Objects) Forget(key manifests.ObjectKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.written.Delete(key)
	l.tombstones.Delete(key)
}

func markedDeleted(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := obj.DeepCopy()
	if out.GetDeletionTimestamp() == nil {
		now := metav1.Now()
		out.SetDeletionTimestamp(&now)
	}
	return out
}

// Scope returns the namespaces reader's informers are limited to, or nil
// when they are cluster-wide.
func Scope(reader Reader) []string {
	if s, ok := reader.(interface{ Scope() []string }); ok {
		return s.Scope()
	}
	return nil
}

// KeyOf returns the key of an object seen in a watch event.
func KeyOf(obj client.Object) manifests.ObjectKey {
	gvk := obj.GetObjectKind().GroupVersionKind()
	return manifests.ObjectKey{Group: gvk.Group, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// Tombstones is how many deleted objects it still reads as being deleted,
// waiting for the cache to see them go.
func (l *Objects) Tombstones() int { return l.tombstones.Len() }
