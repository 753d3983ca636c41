package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/verify"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// chartVerifier returns the verifier spec.chart.verify asks for, nil
// without it. The keys of its Secret are read as the Component's identity
// once per generation and requeue interval (maxAge); a pass in between
// reads no Secret.
func (r *resolver) chartVerifier(ctx context.Context, reader client.Reader, c *v1alpha1.Component, maxAge time.Duration) (fetch.Verifier, error) {
	if c.Spec.Chart.Verify == nil {
		return nil, nil
	}
	if v, ok := r.trusted.get(c, maxAge); ok {
		return v, nil
	}
	v, err := readVerifier(ctx, reader, c, r.verified)
	if err != nil {
		r.trusted.forget(c)
		return nil, err
	}
	r.trusted.put(c, v)
	return v, nil
}

// readVerifier reads the Secret of spec.chart.verify and builds its
// verifier. A Secret without a key of the provider's names fails the
// verification.
func readVerifier(ctx context.Context, reader client.Reader, c *v1alpha1.Component, cache *verify.Cache) (fetch.Verifier, error) {
	spec := c.Spec.Chart.Verify
	name := spec.SecretRef.Name
	data, err := readSecret(ctx, reader, c.Namespace, "spec.chart.verify.secretRef", name, func(err error) error {
		return &manifests.VerificationError{Err: err}
	})
	if err != nil {
		return nil, err
	}
	v, err := verify.New(spec.Provider, name, data, cache)
	if err != nil {
		return nil, &manifests.VerificationError{Err: fmt.Errorf("spec.chart.verify: %w", err)}
	}
	return v, nil
}

// verificationFailed reports a chart that failed its verification as
// such: nothing of it is rendered, and only a change helps.
func verificationFailed(err error) (error, bool) {
	var failed *fetch.VerificationError
	if !errors.As(err, &failed) {
		return nil, false
	}
	return &manifests.VerificationError{Err: err}, true
}
