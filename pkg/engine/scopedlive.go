package engine

import (
	"context"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// scopedLive is the LiveReader of a target whose informers watch only some
// namespaces: a namespaced object elsewhere is read directly (the identity
// may or may not read it there; the API server decides).
type scopedLive struct {
	cache      LiveReader
	direct     client.Reader
	namespaces []string
}

func (s scopedLive) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if key.Namespace != "" && !slices.Contains(s.namespaces, key.Namespace) {
		return s.direct.Get(ctx, key, obj, opts...)
	}
	return s.cache.Get(ctx, key, obj, opts...)
}

// Scope returns the namespaces the informers are limited to.
func (s scopedLive) Scope() []string { return s.namespaces }
