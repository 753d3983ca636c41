package operator

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// readSecret reads the data of Secret name of namespace, as the reader's
// identity; field names the spec field that names it, for messages, which
// never hold its values. A Secret that is not there is what notFound makes
// of that error (the Component's error: a user error, a failed
// verification…); a read that failed otherwise is retried, unless it was
// forbidden.
func readSecret(ctx context.Context, reader client.Reader, namespace, field, name string, notFound func(error) error) (map[string][]byte, error) {
	secret := &corev1.Secret{}
	if err := reader.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, notFound(fmt.Errorf("%s: Secret %s not found", field, name))
		}
		return nil, readError(fmt.Errorf("%s: reading Secret %s: %w", field, name, err))
	}
	return secret.Data, nil
}

// userError makes err the Component's: only a change of it helps.
func userError(err error) error { return &manifests.UserError{Err: err} }
