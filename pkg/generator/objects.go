package generator

import (
	"context"
	"maps"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AddLabels returns an ObjectTransformer that sets labels on the metadata of
// every object, replacing values of the same keys. Pod templates and
// selectors are not changed.
func AddLabels(labels map[string]string) ObjectTransformer {
	return eachObject(func(obj client.Object) error {
		obj.SetLabels(merged(obj.GetLabels(), labels))
		return nil
	})
}

// AddAnnotations returns an ObjectTransformer that sets annotations on the
// metadata of every object, replacing values of the same keys.
func AddAnnotations(annotations map[string]string) ObjectTransformer {
	return eachObject(func(obj client.Object) error {
		obj.SetAnnotations(merged(obj.GetAnnotations(), annotations))
		return nil
	})
}

// DropObjects returns an ObjectTransformer that removes the objects for which
// drop returns true.
func DropObjects(drop func(client.Object) bool) ObjectTransformer {
	return ObjectTransformerFunc(func(_ context.Context, _, _ string, objects []client.Object) ([]client.Object, error) {
		kept := make([]client.Object, 0, len(objects))
		for _, obj := range objects {
			if !drop(obj) {
				kept = append(kept, obj)
			}
		}
		return kept, nil
	})
}

// eachObject returns an ObjectTransformer that changes every object in place
// with change.
func eachObject(change func(client.Object) error) ObjectTransformer {
	return ObjectTransformerFunc(func(_ context.Context, _, _ string, objects []client.Object) ([]client.Object, error) {
		for _, obj := range objects {
			if err := change(obj); err != nil {
				return nil, err
			}
		}
		return objects, nil
	})
}

func merged(base, overlay map[string]string) map[string]string {
	if len(overlay) == 0 {
		return base
	}
	out := make(map[string]string, len(base)+len(overlay))
	maps.Copy(out, base)
	maps.Copy(out, overlay)
	return out
}
