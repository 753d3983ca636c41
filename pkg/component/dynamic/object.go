package dynamic

import (
	"reflect"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// newObject returns an empty component of type T (a pointer to a struct).
func newObject[T component.Component]() T {
	var zero T
	return reflect.New(reflect.TypeOf(zero).Elem()).Interface().(T)
}

// copyInto sets *dst to *src.
func copyInto[T component.Component](src, dst T) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
}
