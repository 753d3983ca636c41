package template

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// lookupFunc returns the lookup template function, which reads through the
// client that ctx carries.
func lookupFunc(ctx context.Context) func(apiVersion, kind, namespace, name string) (map[string]any, error) {
	return func(apiVersion, kind, namespace, name string) (map[string]any, error) {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return nil, fmt.Errorf("lookup: %w", err)
		}
		reader, ok := manifests.ClientFrom(ctx)
		if !ok {
			return map[string]any{}, nil
		}
		content, err := read(ctx, reader, gv.WithKind(kind), namespace, name)
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return map[string]any{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("lookup %s %s %q in namespace %q: %w", apiVersion, kind, name, namespace, err)
		}
		return content, nil
	}
}

// read gets the named object, or lists the kind when name is empty.
func read(ctx context.Context, reader client.Reader, gvk schema.GroupVersionKind, namespace, name string) (map[string]any, error) {
	if name == "" {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := reader.List(ctx, list, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
		return list.UnstructuredContent(), nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj); err != nil {
		return nil, err
	}
	return obj.UnstructuredContent(), nil
}
