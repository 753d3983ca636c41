package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// startCertificate returns a configuration of the hub with the agent's
// certificate — the one kept in the credentials Secret while it is valid,
// otherwise a new one requested with the bootstrap token of opts.Hub — and
// the rotator that renews it.
func startCertificate(ctx context.Context, opts Options) (*rest.Config, *certRotator, error) {
	local, err := client.New(opts.Local, client.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("a client of the agent's cluster: %w", err)
	}
	r := &certRotator{cert: &certificate{}, store: &credentials{client: local, key: opts.CredentialsSecret},
		ns: opts.Namespace, lifetime: opts.CertificateLifetime, rotateAt: opts.RotateAt}
	data, err := r.store.load(ctx)
	if err != nil {
		return nil, nil, err
	}
	log := ctrl.Log.WithName("agent").WithName("certificate")
	if err := r.cert.set(data[corev1.TLSCertKey], data[corev1.TLSPrivateKeyKey]); err == nil && r.usable(time.Now()) {
		log.Info("going on with the certificate of the credentials Secret", "secret", opts.CredentialsSecret)
	} else {
		certPEM, keyPEM, err := requestCertificate(ctx, opts.Hub, opts.Namespace, opts.CertificateLifetime)
		if apierrors.IsUnauthorized(err) {
			return nil, nil, refusedBootstrap(opts.Hub.BearerToken, opts.CredentialsSecret, err)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("registering with the bootstrap token: %w", err)
		}
		if err := r.keep(ctx, certPEM, keyPEM); err != nil {
			return nil, nil, err
		}
		log.Info("registered: the hub signed the agent's certificate", "secret", opts.CredentialsSecret)
	}
	if r.hub, err = r.cert.config(opts.Hub); err != nil {
		return nil, nil, err
	}
	return r.hub, r, nil
}

// refusedBootstrap is the error of a hub that refused (401) the bootstrap
// token when the credentials Secret holds no valid certificate. The API
// server answers a wrong secret, an expired token, a deleted one and a hub
// that takes no bootstrap tokens alike (its authenticator logs the cause
// and tells the client nothing), so the message names them all and where
// the hub's administrator sees which; it names the token by its ID, the
// public half, never by its secret.
func refusedBootstrap(token string, secret client.ObjectKey, err error) error {
	id, _, _ := strings.Cut(token, ".")
	return fmt.Errorf("the hub refuses bootstrap token %s: a wrong secret, expired or deleted (the hub's answer is the same for each; "+
		"Secret kube-system/bootstrap-token-%s on the hub tells which), or the hub's API server takes no bootstrap tokens "+
		"(--enable-bootstrap-token-auth); and Secret %s holds no valid certificate: "+
		"register the cluster again (wavekit agent register --bootstrap) and give the agent the new kubeconfig: %w", id, id, secret, err)
}

// certRotator renews the agent's certificate past rotateAt of its
// lifetime, with a new key, by a request the current certificate makes
// (the hub's approver approves that as a renewal), keeps it in the
// credentials Secret and makes it current. A certificate that cannot be
// renewed stays until it expires; the agent's cluster goes on as last
// applied meanwhile.
type certRotator struct {
	cert     *certificate
	hub      *rest.Config
	store    *credentials
	ns       string
	lifetime time.Duration
	rotateAt float64
}

// usable tells whether the current certificate is the agent's and has a
// minute left at now.
func (r *certRotator) usable(now time.Time) bool {
	_, leaf := r.cert.current()
	return valid(leaf, r.ns, now, time.Minute)
}

// keep saves the certificate and key into the Secret, then makes them
// current.
func (r *certRotator) keep(ctx context.Context, certPEM, keyPEM []byte) error {
	if err := r.store.save(ctx, corev1.SecretTypeTLS, map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM}); err != nil {
		return err
	}
	return r.cert.set(certPEM, keyPEM)
}

// Start renews the certificate until ctx ends.
func (r *certRotator) Start(ctx context.Context) error {
	return renewUntil(ctx, "certificate", r.step)
}

// step renews the certificate when it is due and says when to look again.
// Between two renewals lie at least a twentieth of the lifetime asked for:
// a signer that backdates or shortens certificates (kube-controller-manager
// backdates them five minutes, and ends none past its CA) would otherwise
// have the agent renew in a loop.
func (r *certRotator) step(ctx context.Context, now time.Time) (time.Duration, error) {
	retry := min(time.Minute, max(r.lifetime/20, time.Second))
	if due := r.due(); now.Before(due) {
		return due.Sub(now), nil
	}
	certPEM, keyPEM, err := requestCertificate(ctx, r.hub, r.ns, r.lifetime)
	if err == nil {
		err = r.keep(ctx, certPEM, keyPEM)
	}
	if err != nil {
		return retry, err
	}
	_, leaf := r.cert.current()
	ctrl.Log.WithName("agent").WithName("certificate").Info("renewed the agent's certificate on the hub", "expires", leaf.NotAfter.UTC())
	return max(r.due().Sub(now), r.lifetime/20, time.Second), nil
}

// due is when the current certificate is to be renewed.
func (r *certRotator) due() time.Time {
	_, leaf := r.cert.current()
	lifetime := leaf.NotAfter.Sub(leaf.NotBefore)
	return leaf.NotBefore.Add(time.Duration(float64(lifetime) * r.rotateAt))
}
