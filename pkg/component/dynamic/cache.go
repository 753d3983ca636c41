package dynamic

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// viewCache is the manager's cache in the view: T's informer is the
// manager's informer of unstructured objects of the kind, and the
// informers it hands out are the kind's own (owned).
type viewCache[T component.Component] struct {
	reader[T]
	cache cache.Cache
	owned *owned
}

func (c viewCache[T]) object(obj client.Object) client.Object {
	if _, ok := obj.(T); ok {
		return c.empty()
	}
	return obj
}

func (c viewCache[T]) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	return c.own(c.cache.GetInformer(ctx, c.object(obj), opts...))
}

func (c viewCache[T]) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	if gvk == c.gvk {
		return c.own(c.cache.GetInformer(ctx, c.empty(), opts...))
	}
	return c.own(c.cache.GetInformerForKind(ctx, gvk, opts...))
}

func (c viewCache[T]) own(i cache.Informer, err error) (cache.Informer, error) {
	if err != nil {
		return nil, err
	}
	return c.owned.informer(i), nil
}

func (c viewCache[T]) RemoveInformer(ctx context.Context, obj client.Object) error {
	return c.cache.RemoveInformer(ctx, c.object(obj))
}

// Start does nothing: the manager started its cache.
func (c viewCache[T]) Start(context.Context) error { return nil }

// WaitForCacheSync waits for the informers the kind asked for, not for
// every informer of the manager (owned).
func (c viewCache[T]) WaitForCacheSync(ctx context.Context) bool {
	return c.owned.synced(ctx)
}

func (c viewCache[T]) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	return c.cache.IndexField(ctx, c.object(obj), field, extract)
}
