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

// copyInto sets every exported field of *dst to *src's: what the object's
// JSON carries, as a read or a write's answer sets a typed object. The
// unexported fields of *dst — what the type keeps for itself between a
// read and a write, such as what a post-read hook attached — stay.
func copyInto[T component.Component](src, dst T) {
	s, d := reflect.ValueOf(src).Elem(), reflect.ValueOf(dst).Elem()
	for i := range d.NumField() {
		if d.Type().Field(i).IsExported() {
			d.Field(i).Set(s.Field(i))
		}
	}
}
