package agent

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// tokenKey is the key of the agent's token in its credentials Secret.
const tokenKey = "token"

// secretToken is the agent's token kept in its credentials Secret (token
// mode without --token-file): the hub's connections send the current one,
// which a restarted agent reads back from the Secret.
type secretToken struct {
	store   *credentials
	mu      sync.RWMutex
	current string
}

func (s *secretToken) load() (string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.current, nil
}

func (s *secretToken) save(ctx context.Context, token string) error {
	if err := s.store.save(ctx, corev1.SecretTypeOpaque, map[string][]byte{tokenKey: []byte(token)}); err != nil {
		return err
	}
	s.mu.Lock()
	s.current = token
	s.mu.Unlock()
	return nil
}

func (s *secretToken) where() string { return "Secret " + s.store.key.String() }

// startToken returns a configuration of the hub that sends the token kept
// in the credentials Secret — the Secret's while it has a minute left,
// otherwise the one of opts.Hub, which it keeps there — and that token's
// store, for the rotator.
func startToken(ctx context.Context, opts Options) (*rest.Config, *secretToken, error) {
	local, err := client.New(opts.Local, client.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("a client of the agent's cluster: %w", err)
	}
	s := &secretToken{store: &credentials{client: local, key: opts.CredentialsSecret}}
	data, err := s.store.load(ctx)
	if err != nil {
		return nil, nil, err
	}
	kept := string(data[tokenKey])
	if c, err := parseClaims(kept, s.where()); err == nil && time.Now().Add(time.Minute).Before(time.Unix(c.Expiry, 0)) {
		s.current = kept
		ctrl.Log.WithName("agent").WithName("token").Info("going on with the token of the credentials Secret", "secret", opts.CredentialsSecret)
	} else {
		if _, err := parseClaims(opts.Hub.BearerToken, "the hub's kubeconfig"); err != nil {
			return nil, nil, fmt.Errorf("Secret %s holds no valid token and: %w", opts.CredentialsSecret, err)
		}
		if err := s.save(ctx, opts.Hub.BearerToken); err != nil {
			return nil, nil, err
		}
	}
	out := rest.CopyConfig(opts.Hub)
	out.BearerToken, out.BearerTokenFile = "", ""
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &bearer{next: rt, token: s} })
	return out, s, nil
}

// bearer sends the current token of a secretToken.
type bearer struct {
	next  http.RoundTripper
	token *secretToken
}

func (b *bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	token, _ := b.token.load()
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+token)
	return b.next.RoundTrip(req)
}
