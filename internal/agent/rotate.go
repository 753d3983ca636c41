package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultRotateAt is the part of its lifetime after which the agent
// replaces its token on the hub, as the kubelet does a projected one's.
const DefaultRotateAt = 0.8

// rotator keeps the agent's token fresh: past rotateAt of its lifetime it
// requests a new token of its own ServiceAccount on the hub (its Role
// allows that, for its own account only) and replaces the one in store (a
// file, which client-go re-reads every minute, or the credentials Secret,
// token.go). A token that cannot be renewed stays until it expires; the
// agent's cluster goes on as last applied meanwhile.
type rotator struct {
	hub      client.Client
	store    tokenStore
	rotateAt float64
}

// tokenStore holds the agent's current token.
type tokenStore interface {
	load() (string, error)
	save(ctx context.Context, token string) error
	where() string
}

// tokenFile is a token kept in a file.
type tokenFile string

func (f tokenFile) load() (string, error) {
	raw, err := os.ReadFile(string(f))
	if err != nil {
		return "", fmt.Errorf("reading the agent's token: %w", err)
	}
	return string(raw), nil
}

func (f tokenFile) save(_ context.Context, token string) error { return writeToken(string(f), token) }

func (f tokenFile) where() string { return string(f) }

// claims are the parts of a ServiceAccount token the rotator reads: it
// trusts its own file and verifies nothing (the hub does).
type claims struct {
	IssuedAt   int64 `json:"iat"`
	Expiry     int64 `json:"exp"`
	Kubernetes struct {
		Namespace      string `json:"namespace"`
		ServiceAccount struct {
			Name string `json:"name"`
		} `json:"serviceaccount"`
	} `json:"kubernetes.io"`
}

// readClaims reads the claims of the token in file.
func readClaims(file string) (claims, error) {
	raw, err := tokenFile(file).load()
	if err != nil {
		return claims{}, err
	}
	return parseClaims(raw, file)
}

// parseClaims reads the claims of token, which is in where.
func parseClaims(token, where string) (claims, error) {
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return claims{}, fmt.Errorf("the agent's token in %s is not a JWT", where)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return claims{}, fmt.Errorf("decoding the agent's token in %s: %w", where, err)
	}
	var c claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return claims{}, fmt.Errorf("decoding the agent's token in %s: %w", where, err)
	}
	if c.Expiry <= c.IssuedAt || c.Kubernetes.ServiceAccount.Name == "" {
		return claims{}, fmt.Errorf("the agent's token in %s is not a bound ServiceAccount token with an expiry", where)
	}
	return c, nil
}

// Start rotates the token until ctx ends.
func (r *rotator) Start(ctx context.Context) error {
	return renewUntil(ctx, "token", r.step)
}

// renewUntil renews the agent's credential (what) with step until ctx
// ends, waiting as step says between two calls.
func renewUntil(ctx context.Context, what string, step func(context.Context, time.Time) (time.Duration, error)) error {
	log := ctrl.Log.WithName("agent").WithName(what)
	for {
		wait, err := step(ctx, time.Now())
		if err != nil {
			log.Error(err, "renewing the agent's "+what+" on the hub; trying again", "in", wait)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// step renews the token when it is due and says when to look again.
func (r *rotator) step(ctx context.Context, now time.Time) (time.Duration, error) {
	token, err := r.store.load()
	if err != nil {
		return time.Minute, err
	}
	c, err := parseClaims(token, r.store.where())
	if err != nil {
		return time.Minute, err
	}
	lifetime := time.Duration(c.Expiry-c.IssuedAt) * time.Second
	due := time.Unix(c.IssuedAt, 0).Add(time.Duration(float64(lifetime) * r.rotateAt))
	if now.Before(due) {
		return due.Sub(now), nil
	}
	seconds := int64(lifetime / time.Second)
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: c.Kubernetes.Namespace, Name: c.Kubernetes.ServiceAccount.Name}}
	if err := r.hub.SubResource("token").Create(ctx, sa, request); err != nil {
		return min(time.Minute, max(lifetime/20, time.Second)), fmt.Errorf("requesting a token of %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	if err := r.store.save(ctx, request.Status.Token); err != nil {
		return time.Minute, err
	}
	ctrl.Log.WithName("agent").WithName("token").Info("renewed the agent's token on the hub", "expires", request.Status.ExpirationTimestamp.UTC())
	return max(time.Duration(float64(lifetime)*r.rotateAt), time.Second), nil
}

// writeToken replaces file with token, whole or not at all.
func writeToken(file, token string) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".token-*")
	if err != nil {
		return fmt.Errorf("writing the agent's token: %w", err)
	}
	_, werr := tmp.WriteString(token)
	if err := errors.Join(werr, tmp.Chmod(0o600), tmp.Close()); err != nil {
		return errors.Join(fmt.Errorf("writing the agent's token: %w", err), os.Remove(tmp.Name()))
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return errors.Join(fmt.Errorf("replacing the agent's token: %w", err), os.Remove(tmp.Name()))
	}
	return nil
}
