package fetch

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"oras.land/oras-go/v2/registry/remote/auth"
)

// Credentials authenticate to a repository or registry.
type Credentials struct {
	Username, Password string
	// CA is a PEM bundle to trust in addition to the system roots
	// (optional).
	CA []byte
}

// hasLogin reports whether c carries a username or password.
func (c *Credentials) hasLogin() bool {
	return c != nil && (c.Username != "" || c.Password != "")
}

// ChartRequest asks for a chart from a Helm repository or an OCI registry.
type ChartRequest struct {
	// Repository is https://… (a Helm repository with an index.yaml) or
	// oci://host/path.
	Repository string
	// Name is the chart's name.
	Name string
	// Version is a semver constraint ("1.2.3", "^1.2", ">=1 <2"); "" takes
	// the latest stable version.
	Version string
	// Credentials authenticate to the repository; nil: anonymous.
	Credentials *Credentials
	// Insecure makes an OCI registry be spoken to in plain HTTP.
	Insecure bool
	// MaxAge is how long a fetched index.yaml or tag list is reused before
	// the repository is asked again; 0: always ask.
	MaxAge time.Duration
	// Verifier, if set, checks the chart before it is taken from the cache
	// or stored in it; a chart it refuses is a VerificationError.
	Verifier Verifier
}

// ArtifactRequest asks for a .tar.gz, such as a Flux artifact.
type ArtifactRequest struct {
	URL string
	// Digest is "sha256:<hex>" (or sha384, sha512); what is downloaded
	// must match it.
	Digest string
	// Revision is returned as is.
	Revision string
}

// Fetched is what was brought onto disk. The directory belongs to the
// cache: read it, do not change it.
type Fetched struct {
	// Dir is the chart's directory (Chart.yaml at its root) or the
	// artifact's extracted root.
	Dir string
	// URL is the chart archive's URL, its OCI reference
	// (host/path/name:version), or the artifact's URL.
	URL string
	// Revision is the chart's version, or the artifact's revision.
	Revision string
	// Digest is "sha256:<hex>" of the chart archive or the artifact.
	Digest string
	// Verified is what the request's Verifier said it verified, if any.
	Verified string
}

// Fetcher brings charts and artifacts into a Cache. It is safe for
// concurrent use.
type Fetcher struct {
	cache    *Cache
	client   *http.Client
	timeout  time.Duration
	maxSize  int64
	versions versionCache

	// archiveDigests holds the digests of archives an index gives none
	// for, by URL, version and creation time in the index.
	archiveDigests sync.Map

	mu         sync.Mutex
	caClients  map[string]*http.Client // by the CA bundle's digest
	authCaches map[string]auth.Cache   // registry tokens and schemes, by sourceKey
}

// NewFetcher returns a Fetcher that keeps what it fetches in cache.
func NewFetcher(cache *Cache, opts ...Option) *Fetcher {
	f := &Fetcher{
		cache:      cache,
		timeout:    DefaultTimeout,
		maxSize:    DefaultMaxSize,
		versions:   versionCache{byKey: map[string]*versions{}},
		caClients:  map[string]*http.Client{},
		authCaches: map[string]auth.Cache{},
	}
	for _, opt := range opts {
		opt(f)
	}
	if f.client == nil {
		f.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return f
}

// clientFor returns the HTTP client to use with creds: the Fetcher's own,
// or, when creds carry a CA bundle, a copy that also trusts it, made once
// per bundle.
func (f *Fetcher) clientFor(creds *Credentials) (*http.Client, error) {
	if creds == nil || len(creds.CA) == 0 {
		return f.client, nil
	}
	sum := sha256.Sum256(creds.CA)
	key := string(sum[:])
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.caClients[key]; ok {
		return c, nil
	}
	transport, err := f.transportTrusting(creds.CA)
	if err != nil {
		return nil, err
	}
	c := *f.client
	c.Transport = transport
	f.caClients[key] = &c
	return &c, nil
}

// transportTrusting returns a copy of the client's transport that trusts
// the PEM bundle ca besides the system roots.
func (f *Fetcher) transportTrusting(ca []byte) (*http.Transport, error) {
	base := http.DefaultTransport
	if f.client.Transport != nil {
		base = f.client.Transport
	}
	t, ok := base.(*http.Transport)
	if !ok {
		return nil, fmt.Errorf("trusting a CA bundle needs an *http.Transport in the HTTP client, not %T", base)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(ca) {
		return nil, errors.New("credentials: the CA bundle holds no PEM certificate")
	}
	t = t.Clone()
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{}
	}
	t.TLSClientConfig.RootCAs = pool
	return t, nil
}

// sourceKey identifies a repository as seen with creds, so that what one
// set of credentials may see is not served to another; it keeps no
// password in clear.
func sourceKey(creds *Credentials, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	if creds != nil {
		for _, p := range [][]byte{[]byte(creds.Username), []byte(creds.Password), creds.CA} {
			h.Write(p)
			h.Write([]byte{0})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// redact hides the password of a URL that carries one, for messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}
