package agent

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// credentials keeps the agent's credential on the hub in a Secret of its
// own cluster, so that a restarted agent goes on with it and needs no
// bootstrap token again. The agent creates the Secret; its values are
// never logged.
type credentials struct {
	client client.Client // the agent's cluster, uncached
	key    client.ObjectKey
}

// load returns the Secret's data, nil when there is no Secret.
func (c *credentials) load(ctx context.Context) (map[string][]byte, error) {
	secret := &corev1.Secret{}
	err := c.client.Get(ctx, c.key, secret)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the agent's credentials Secret %s: %w", c.key, err)
	}
	return secret.Data, nil
}

// save writes data into the Secret, creating it when missing.
func (c *credentials) save(ctx context.Context, secretType corev1.SecretType, data map[string][]byte) error {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: c.key.Namespace, Name: c.key.Name,
		Labels: map[string]string{"app.kubernetes.io/component": "wavekit-agent-credentials"}}, Type: secretType, Data: data}
	err := c.client.Create(ctx, secret)
	if apierrors.IsAlreadyExists(err) {
		existing := &corev1.Secret{}
		if err := c.client.Get(ctx, c.key, existing); err != nil {
			return fmt.Errorf("reading the agent's credentials Secret %s: %w", c.key, err)
		}
		existing.Data = data
		if existing.Type != secretType {
			return fmt.Errorf("the agent's credentials Secret %s is of type %s, not %s: delete it or name another", c.key, existing.Type, secretType)
		}
		err = c.client.Update(ctx, existing)
	}
	if err != nil {
		return fmt.Errorf("writing the agent's credentials Secret %s: %w", c.key, err)
	}
	return nil
}
