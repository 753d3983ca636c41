package receiver

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
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

// How long a path that no cached Receiver has is looked up again, and how
// often: the status that shows a new path reaches this replica's cache a
// moment after its writer sees it written, and a sender that posts to the
// path as soon as it reads it (a registry's test delivery) must not get
// 404 for that moment. The process's rate limit bounds how many requests
// wait at once.
const (
	pathSettle   = 2 * time.Second
	pathInterval = 100 * time.Millisecond
)

// clusterSource finds Receivers in the manager's cache and reads their
// Secrets from the API server, each time: a token is not kept in memory
// between requests.
type clusterSource struct {
	cache  client.Reader
	secret client.Reader
	// settle is how long a path no cached Receiver has is looked up
	// again (pathSettle).
	settle time.Duration
}

func (s *clusterSource) find(ctx context.Context, path string) (*v1alpha1.Receiver, error) {
	var found *v1alpha1.Receiver
	lookup := func(ctx context.Context) (bool, error) {
		var list v1alpha1.ReceiverList
		if err := s.cache.List(ctx, &list, client.MatchingFields{pathIndex: path}); err != nil {
			return false, fmt.Errorf("listing the Receivers of a path: %w", err)
		}
		if len(list.Items) == 0 {
			return false, nil
		}
		// Two Receivers share a path only with the same token, name and
		// namespace: the same Receiver.
		found = &list.Items[0]
		return true, nil
	}
	err := wait.PollUntilContextTimeout(ctx, pathInterval, s.settle, true, lookup)
	if err != nil && found == nil && wait.Interrupted(err) && ctx.Err() == nil {
		return nil, nil
	}
	return found, err
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
