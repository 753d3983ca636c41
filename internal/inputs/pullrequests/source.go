package pullrequests

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
)

// Source reads pull requests; one serves every set of an operator.
type Source struct {
	secrets client.Reader
	client  *http.Client
	allow   func(ctx context.Context, namespace, url string) error
	now     func() time.Time

	group singleflight.Group
	mu    sync.Mutex
	memo  map[string]*listing
	// failed is, by listing, the last read that failed, which answers the
	// reads that follow for a while (failedAnswers) rather than the API.
	failed map[string]failure
	// limited is, by host, when its rate limit resets.
	limited map[string]time.Time
}

// Option configures a Source.
type Option func(*Source)

// WithHTTPClient sends the requests with c (default: a client with a 30 s
// timeout).
func WithHTTPClient(c *http.Client) Option { return func(s *Source) { s.client = c } }

// WithAllow checks each API URL, for a set of namespace, before anything
// is sent to it.
func WithAllow(allow func(ctx context.Context, namespace, url string) error) Option {
	return func(s *Source) { s.allow = allow }
}

// WithClock reads the time with now (tests).
func WithClock(now func() time.Time) Option { return func(s *Source) { s.now = now } }

// New returns a Source that reads the sets' token Secrets with secrets.
func New(secrets client.Reader, opts ...Option) *Source {
	s := &Source{secrets: secrets, client: &http.Client{Timeout: 30 * time.Second, CheckRedirect: stayOnHost}, now: time.Now,
		memo: map[string]*listing{}, failed: map[string]failure{}, limited: map[string]time.Time{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Read returns the open pull requests of source.PullRequests that its
// filters keep, as inputs.
func (s *Source) Read(ctx context.Context, namespace string, source v1alpha1.InputSource, opts inputs.ReadOptions) ([]inputs.Input, error) {
	spec := source.PullRequests
	if spec == nil {
		return nil, fmt.Errorf("no pullRequests to read")
	}
	api, err := apiOf(spec)
	if err != nil {
		return nil, err
	}
	if s.allow != nil {
		if err := s.allow(ctx, namespace, api.base); err != nil {
			return nil, err
		}
	}
	creds, err := s.credentials(ctx, namespace, spec.SecretRef)
	if err != nil {
		return nil, err
	}
	l, err := s.listing(ctx, api, creds, opts)
	if err != nil {
		return nil, err
	}
	return selected(l.pulls, spec), nil
}

// listing is the memoized listing of api for creds, read again past the
// interval or when asked since a later time.
func (s *Source) listing(ctx context.Context, api api, creds credentials, opts inputs.ReadOptions) (*listing, error) {
	key := api.key() + "\x00" + creds.identity
	s.mu.Lock()
	l, f := s.memo[key], s.failed[key]
	s.mu.Unlock()
	if l.fresh(s.now(), opts) {
		return l, nil
	}
	if f.answers(s.now(), opts) {
		return nil, f.err
	}
	v, err, _ := s.group.Do(key, func() (any, error) {
		s.mu.Lock()
		latest := s.memo[key]
		s.mu.Unlock()
		if latest.fresh(s.now(), opts) {
			return latest, nil // read by another set while this one waited
		}
		read, err := s.list(ctx, api, creds, latest)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.forget(s.now())
		if err != nil {
			s.failed[key] = failure{at: s.now(), err: err}
			return nil, err
		}
		s.memo[key] = read
		delete(s.failed, key)
		return read, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*listing), nil
}

// forgetAfter is how long a listing, a failure or a rate limit no read
// asked for again is kept: a deleted set, a rotated token or a repository
// no longer read would otherwise stay in memory for the operator's life.
const forgetAfter = 24 * time.Hour

// forget drops what no read asked for within forgetAfter; the caller
// holds s.mu. A listing in use is read again every interval, so only one
// whose sets are gone (or read less than daily) goes.
func (s *Source) forget(now time.Time) {
	for key, l := range s.memo {
		if now.Sub(l.at) > forgetAfter {
			delete(s.memo, key)
		}
	}
	for key, f := range s.failed {
		if now.Sub(f.at) > forgetAfter {
			delete(s.failed, key)
		}
	}
	for host, until := range s.limited {
		if now.After(until) {
			delete(s.limited, host)
		}
	}
}

// credentials are a set's token and trusted CA, and who they are.
type credentials struct {
	token    string
	ca       []byte
	secret   string
	identity string
}

// credentials reads the Secret ref names in namespace; none: anonymous.
func (s *Source) credentials(ctx context.Context, namespace string, ref *v1alpha1.LocalObjectReference) (credentials, error) {
	if ref == nil {
		return credentials{}, nil
	}
	secret := &corev1.Secret{}
	if err := s.secrets.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, secret); err != nil {
		return credentials{}, fmt.Errorf("secretRef: reading Secret %s/%s: %w", namespace, ref.Name, err)
	}
	token := string(secret.Data["token"])
	if token == "" {
		return credentials{}, fmt.Errorf("secretRef: Secret %s/%s has no key token", namespace, ref.Name)
	}
	sum := sha256.Sum256([]byte(token))
	return credentials{token: token, ca: secret.Data["ca.crt"], secret: namespace + "/" + ref.Name,
		identity: namespace + "/" + ref.Name + "/" + hex.EncodeToString(sum[:8])}, nil
}
