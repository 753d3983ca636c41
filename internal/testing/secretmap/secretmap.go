package secretmap

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Reader holds each Secret's data by "namespace/name".
type Reader map[string]map[string][]byte

// Get reads the Secret key into obj, a *corev1.Secret.
func (r Reader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	secret, ok := obj.(*corev1.Secret)
	if !ok {
		return fmt.Errorf("secretmap: reads Secrets only, not %T", obj)
	}
	data, ok := r[key.String()]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, key.Name)
	}
	secret.Namespace, secret.Name, secret.Data = key.Namespace, key.Name, data
	return nil
}

// List is refused: what these readers serve reads Secrets by name.
func (r Reader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return fmt.Errorf("secretmap: lists nothing: Secrets are read by name")
}
