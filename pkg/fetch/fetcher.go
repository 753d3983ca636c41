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
	// Token is a bearer token, sent instead of a username and password:
	// as "Authorization: Bearer" to a Helm repository, as the access token
	// to an OCI registry (optional).
	Token string
	// CA is a PEM bundle to trust in addition to the system roots
	// (optional).
	CA []byte
	// CertPEM and KeyPEM are a client certificate and its key, for a
	// server that asks for one (optional; both or neither). They are used
	// for the requests of one fetch and not kept.
	CertPEM, KeyPEM []byte
}

// hasLogin reports whether c carries a username, a password or a token.
func (c *Credentials) hasLogin() bool {
	return c != nil && (c.Username != "" || c.Password != "" || c.Token != "")
}

// hasClientCertificate reports whether c carries a client certificate.
func (c *Credentials) hasClientCertificate() bool {
	return c != nil && (len(c.CertPEM) > 0 || len(c.KeyPEM) > 0)
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

// clientFor returns the HTTP client to use with creds: the Fetcher's own;
// when creds carry a CA bundle, a copy that also trusts it, made once per
// bundle; when they carry a client certificate, a copy made for this fetch
// alone, which keeps no connection open after it, so that the key is not
// kept in memory.
func (f *Fetcher) clientFor(creds *Credentials) (*http.Client, error) {
	if creds.hasClientCertificate() {
		transport, err := f.transportFor(creds)
		if err != nil {
			return nil, err
		}
		transport.DisableKeepAlives = true
		c := *f.client
		c.Transport = transport
		return &c, nil
	}
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
	transport, err := f.transportFor(creds)
	if err != nil {
		return nil, err
	}
	c := *f.client
	c.Transport = transport
	f.caClients[key] = &c
	return &c, nil
}

// transportFor returns a copy of the client's transport that trusts creds'
// CA bundle besides the system roots, and presents its client
// certificate, if they carry them.
func (f *Fetcher) transportFor(creds *Credentials) (*http.Transport, error) {
	base := http.DefaultTransport
	if f.client.Transport != nil {
		base = f.client.Transport
	}
	t, ok := base.(*http.Transport)
	if !ok {
		return nil, fmt.Errorf("trusting a CA bundle or presenting a client certificate needs an *http.Transport in the HTTP client, not %T", base)
	}
	t = t.Clone()
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{}
	}
	if len(creds.CA) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(creds.CA) {
			return nil, errors.New("credentials: the CA bundle holds no PEM certificate")
		}
		t.TLSClientConfig.RootCAs = pool
	}
	if creds.hasClientCertificate() {
		cert, err := tls.X509KeyPair(creds.CertPEM, creds.KeyPEM)
		if err != nil {
			return nil, fmt.Errorf("credentials: the client certificate and key: %w", err)
		}
		t.TLSClientConfig.Certificates = []tls.Certificate{cert}
	}
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
		for _, p := range [][]byte{[]byte(creds.Username), []byte(creds.Password), []byte(creds.Token), creds.CA, creds.CertPEM, creds.KeyPEM} {
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
