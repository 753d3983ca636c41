package dynamic

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// reader reads T and List[T] as unstructured objects of the kind through
// the reader it wraps (a cache or the API server), and anything else as it
// is.
type reader[T component.Component] struct {
	kind[T]
	client.Reader
}

func (r reader[T]) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	t, ok := obj.(T)
	if !ok {
		return r.Reader.Get(ctx, key, obj, opts...)
	}
	u := r.empty()
	if err := r.Reader.Get(ctx, key, u, opts...); err != nil {
		return err
	}
	return r.into(u, t)
}

func (r reader[T]) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	l, ok := list.(*List[T])
	if !ok {
		return r.Reader.List(ctx, list, opts...)
	}
	u := r.emptyList()
	if err := r.Reader.List(ctx, u, opts...); err != nil {
		return err
	}
	return r.intoList(u, l)
}

// viewClient is the manager's client in the view: T is read from the
// manager's cache and written as an unstructured object of the kind.
type viewClient[T component.Component] struct {
	reader[T]
	writes client.Client
	scheme *runtime.Scheme
}

// written writes t as an unstructured object with write, then sets t to
// the answer.
func (c viewClient[T]) written(t T, write func(client.Object) error) error {
	u, err := c.toUnstructured(t)
	if err != nil {
		return err
	}
	if err := write(u); err != nil {
		return err
	}
	return c.into(u, t)
}

func (c viewClient[T]) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	return c.writes.Apply(ctx, obj, opts...)
}

func (c viewClient[T]) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if t, ok := obj.(T); ok {
		return c.written(t, func(u client.Object) error { return c.writes.Create(ctx, u, opts...) })
	}
	return c.writes.Create(ctx, obj, opts...)
}

func (c viewClient[T]) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if t, ok := obj.(T); ok {
		return c.written(t, func(u client.Object) error { return c.writes.Update(ctx, u, opts...) })
	}
	return c.writes.Update(ctx, obj, opts...)
}

// Patch computes the patch from T (a merge patch's JSON is the same either
// way) and sends it for the unstructured object.
func (c viewClient[T]) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if t, ok := obj.(T); ok {
		data, err := patch.Data(t)
		if err != nil {
			return err
		}
		return c.written(t, func(u client.Object) error {
			return c.writes.Patch(ctx, u, client.RawPatch(patch.Type(), data), opts...)
		})
	}
	return c.writes.Patch(ctx, obj, patch, opts...)
}

func (c viewClient[T]) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if t, ok := obj.(T); ok {
		u, err := c.toUnstructured(t)
		if err != nil {
			return err
		}
		return c.writes.Delete(ctx, u, opts...)
	}
	return c.writes.Delete(ctx, obj, opts...)
}

func (c viewClient[T]) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	if _, ok := obj.(T); ok {
		return c.writes.DeleteAllOf(ctx, c.empty(), opts...)
	}
	return c.writes.DeleteAllOf(ctx, obj, opts...)
}

func (c viewClient[T]) Status() client.SubResourceWriter { return c.SubResource("status") }

func (c viewClient[T]) SubResource(subResource string) client.SubResourceClient {
	return subResourceClient[T]{client: c, inner: c.writes.SubResource(subResource)}
}

func (c viewClient[T]) Scheme() *runtime.Scheme { return c.scheme }

func (c viewClient[T]) RESTMapper() meta.RESTMapper { return c.writes.RESTMapper() }

func (c viewClient[T]) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	if _, ok := obj.(T); ok {
		return apiutil.GVKForObject(obj, c.scheme)
	}
	return c.writes.GroupVersionKindFor(obj)
}

func (c viewClient[T]) IsObjectNamespaced(obj runtime.Object) (bool, error) {
	if _, ok := obj.(T); ok {
		return c.writes.IsObjectNamespaced(c.empty())
	}
	return c.writes.IsObjectNamespaced(obj)
}

// subResourceClient writes a subresource (the status) of T as one of an
// unstructured object.
type subResourceClient[T component.Component] struct {
	client viewClient[T]
	inner  client.SubResourceClient
}

func (s subResourceClient[T]) Get(ctx context.Context, obj client.Object, subResource client.Object, opts ...client.SubResourceGetOption) error {
	if t, ok := obj.(T); ok {
		return s.client.written(t, func(u client.Object) error { return s.inner.Get(ctx, u, subResource, opts...) })
	}
	return s.inner.Get(ctx, obj, subResource, opts...)
}

func (s subResourceClient[T]) Create(ctx context.Context, obj client.Object, subResource client.Object, opts ...client.SubResourceCreateOption) error {
	if t, ok := obj.(T); ok {
		u, err := s.client.toUnstructured(t)
		if err != nil {
			return err
		}
		return s.inner.Create(ctx, u, subResource, opts...)
	}
	return s.inner.Create(ctx, obj, subResource, opts...)
}

func (s subResourceClient[T]) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if t, ok := obj.(T); ok {
		return s.client.written(t, func(u client.Object) error { return s.inner.Update(ctx, u, opts...) })
	}
	return s.inner.Update(ctx, obj, opts...)
}

func (s subResourceClient[T]) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if t, ok := obj.(T); ok {
		data, err := patch.Data(t)
		if err != nil {
			return err
		}
		return s.client.written(t, func(u client.Object) error {
			return s.inner.Patch(ctx, u, client.RawPatch(patch.Type(), data), opts...)
		})
	}
	return s.inner.Patch(ctx, obj, patch, opts...)
}

func (s subResourceClient[T]) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	return s.inner.Apply(ctx, obj, opts...)
}
