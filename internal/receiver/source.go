package receiver

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// pathIndex indexes the cached Receivers by status.webhookPath.
const pathIndex = "status.webhookPath"

// indexPath is the index function of pathIndex.
func indexPath(o client.Object) []string {
	if r, ok := o.(*v1alpha1.Receiver); ok && r.Status.WebhookPath != "" {
		return []string{r.Status.WebhookPath}
	}
	return nil
}

// clusterSource finds Receivers in the manager's cache and reads their
// Secrets from the API server, each time: a token is not kept in memory
// between requests.
type clusterSource struct {
	cache  client.Reader
	secret client.Reader
}

func (s *clusterSource) find(ctx context.Context, path string) (*v1alpha1.Receiver, error) {
	var list v1alpha1.ReceiverList
	if err := s.cache.List(ctx, &list, client.MatchingFields{pathIndex: path}); err != nil {
		return nil, fmt.Errorf("listing the Receivers of a path: %w", err)
	}
	if len(list.Items) == 0 {
		return nil, nil
	}
	// Two Receivers share a path only with the same token, name and
	// namespace: the same Receiver.
	return &list.Items[0], nil
}

func (s *clusterSource) token(ctx context.Context, r *v1alpha1.Receiver) ([]byte, error) {
	return readToken(ctx, s.secret, r)
}

// readToken reads the token of r's Secret; errNoToken when the Secret or
// its key is missing.
func readToken(ctx context.Context, reader client.Reader, r *v1alpha1.Receiver) ([]byte, error) {
	var secret corev1.Secret
	err := reader.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: r.Spec.SecretRef.Name}, &secret)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%w: Secret %s/%s not found", errNoToken, r.Namespace, r.Spec.SecretRef.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading Secret %s/%s: %w", r.Namespace, r.Spec.SecretRef.Name, err)
	}
	token := secret.Data[v1alpha1.ReceiverTokenKey]
	if len(token) == 0 {
		return nil, fmt.Errorf("%w: Secret %s/%s has no key %q", errNoToken, r.Namespace, r.Spec.SecretRef.Name, v1alpha1.ReceiverTokenKey)
	}
	return token, nil
}
