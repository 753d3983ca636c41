package component

import (
	"context"
	"reflect"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// HookFunc is called at a point of the reconcile with a client of the
// cluster the component lives in.
type HookFunc[T Component] func(ctx context.Context, c client.Client, component T) error

func newObject[T Component]() T {
	var zero T
	return reflect.New(reflect.TypeOf(zero).Elem()).Interface().(T)
}
