package live

import (
	"context"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Scoped is the LiveReader of a target whose informers watch only some
// namespaces: a namespaced object elsewhere is read directly (the identity
// may or may not read it there; the API server decides).
type Scoped struct {
	Cache      Reader
	Direct     client.Reader
	Namespaces []string
}

func (s Scoped) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if key.Namespace != "" && !slices.Contains(s.Namespaces, key.Namespace) {
		return s.Direct.Get(ctx, key, obj, opts...)
	}
	return s.Cache.Get(ctx, key, obj, opts...)
}

// Scope returns the namespaces the informers are limited to.
func (s Scoped) Scope() []string { return s.Namespaces }
