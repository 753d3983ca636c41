package external

import (
	"context"
	"crypto/rand"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// secrets reads the Secrets of external dependents and writes their own:
// values exist only in memory and in the Secrets, never in errors.
type secrets struct {
	client    client.Client
	namespace string
	// ownerLabel and ownerID mark the dependents' own Secrets.
	ownerLabel, ownerID string
}

// credentials returns the data of the Secret named name (nil for "").
func (s secrets) credentials(ctx context.Context, name string) (map[string][]byte, error) {
	if name == "" {
		return nil, nil
	}
	var secret corev1.Secret
	if err := s.client.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: name}, &secret); err != nil {
		return nil, fmt.Errorf("reading credentialsFrom Secret %s/%s: %w", s.namespace, name, err)
	}
	return secret.Data, nil
}

// ensure writes the dependent's own Secret as spec says, keeping values it
// generated before, and returns its data. A Secret of that name that
// another owner made is left alone, and an error.
func (s secrets) ensure(ctx context.Context, spec *SecretSpec) (map[string][]byte, error) {
	if spec == nil {
		return nil, nil
	}
	key := client.ObjectKey{Namespace: s.namespace, Name: spec.Name}
	var secret corev1.Secret
	err := s.client.Get(ctx, key, &secret)
	switch {
	case apierrors.IsNotFound(err):
		secret = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, Labels: map[string]string{s.ownerLabel: s.ownerID}}}
		secret.Data = wanted(spec, nil)
		if err := s.client.Create(ctx, &secret); err != nil {
			return nil, fmt.Errorf("creating Secret %s: %w", key, err)
		}
		return secret.Data, nil
	case err != nil:
		return nil, fmt.Errorf("reading Secret %s: %w", key, err)
	case secret.Labels[s.ownerLabel] != s.ownerID:
		return nil, fmt.Errorf("Secret %s exists and belongs to another owner; rename the dependent's secret", key)
	}
	data := wanted(spec, secret.Data)
	if !maps.EqualFunc(data, secret.Data, func(a, b []byte) bool { return string(a) == string(b) }) {
		secret.Data = data
		if err := s.client.Update(ctx, &secret); err != nil {
			return nil, fmt.Errorf("updating Secret %s: %w", key, err)
		}
	}
	return data, nil
}

// remove deletes the dependent's own Secret; one already gone is fine.
func (s secrets) remove(ctx context.Context, name string) error {
	if name == "" {
		return nil
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: name}}
	if err := s.client.Delete(ctx, secret); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting Secret %s/%s: %w", s.namespace, name, err)
	}
	return nil
}

// wanted is the data spec asks for: its fixed values, the generated values
// of have, and new random values for generated keys have lacks.
func wanted(spec *SecretSpec, have map[string][]byte) map[string][]byte {
	data := map[string][]byte{}
	for k, v := range spec.Data {
		data[k] = []byte(v)
	}
	for _, k := range spec.Generate {
		if v, ok := have[k]; ok && len(v) > 0 {
			data[k] = v
		} else {
			data[k] = []byte(rand.Text())
		}
	}
	return data
}
