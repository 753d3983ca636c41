package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/registry"
	"helm.sh/helm/v3/pkg/repo"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// unusedCredentialsFile is what the Helm registry client is told is its
// credentials file, in the cache directory. Nothing creates it: the client
// authenticates with the request's Credentials and nothing else, so that
// neither $HOME nor a docker config matters.
const unusedCredentialsFile = "registry-credentials-unused.json"

// chartFromRegistry fetches a chart from an OCI registry: its tags (unless
// a list younger than MaxAge is at hand), the chosen tag's manifest digest,
// then the chart (unless the cache holds that manifest's chart).
func (f *Fetcher) chartFromRegistry(ctx context.Context, req ChartRequest) (Fetched, error) {
	ref := strings.Trim(strings.TrimPrefix(req.Repository, "oci://"), "/") + "/" + req.Name
	key := sourceKey(req.Credentials, "oci", ref, strconv.FormatBool(req.Insecure))
	vs, err := f.versions.get(key, req.MaxAge, func() (*repo.IndexFile, error) {
		return f.listTags(ctx, req, ref)
	})
	if err != nil {
		return Fetched{}, err
	}
	cv, err := pickVersion(vs.index, req.Name, req.Version, req.Repository)
	if err != nil {
		return Fetched{}, err
	}
	tagged := ref + ":" + cv.Version
	manifest, err := f.manifestDigest(ctx, req, ref, cv.Version, vs)
	if err != nil {
		return Fetched{}, err
	}
	verified, err := f.verifyManifest(ctx, req, ref, manifest)
	if err != nil {
		return Fetched{}, err
	}
	if e, ok := f.cache.lookup(entryKey{chartKind, manifest}); ok {
		return withVerified(fetchedChart(e, tagged, cv.Version), verified), nil
	}
	e, err := f.cache.store(entryKey{chartKind, manifest}, func(tmp string) (entryMeta, error) {
		return f.pullChart(ctx, req, ref, manifest, tagged, cv.Version, tmp)
	})
	if err != nil {
		return Fetched{}, unverifiedContent(req, ref, manifest, err)
	}
	return withVerified(fetchedChart(e, tagged, cv.Version), verified), nil
}

// verifyManifest runs req's Verifier, if any, on the manifest the chart is
// pulled by.
func (f *Fetcher) verifyManifest(ctx context.Context, req ChartRequest, ref string, manifest digest) (string, error) {
	if req.Verifier == nil {
		return "", nil
	}
	repository, err := f.repository(req, ref)
	if err != nil {
		return "", err
	}
	return f.verify(ctx, req, Subject{Source: ref, Digest: manifest.String(), Registry: repository})
}

// unverifiedContent says, of a chart whose manifest was verified, that what
// the registry served for it does not match it: a VerificationError, as a
// wrong signature is.
func unverifiedContent(req ChartRequest, ref string, manifest digest, err error) error {
	if req.Verifier == nil || IsTransient(err) {
		return err
	}
	return &VerificationError{Source: ref, Digest: manifest.String(), Err: fmt.Errorf("the content served for the signed manifest: %w", err)}
}

// withVerified returns fetched with what was verified.
func withVerified(fetched Fetched, verified string) Fetched {
	fetched.Verified = verified
	return fetched
}

// listTags lists the chart's semver tags ("_" read as "+", as Helm pushes
// them) as an index, so that versions resolve as in a Helm repository.
func (f *Fetcher) listTags(ctx context.Context, req ChartRequest, ref string) (*repo.IndexFile, error) {
	var tags []string
	err := f.withRegistry(ctx, req, ref, func(c *registry.Client) (err error) {
		tags, err = c.Tags(ref)
		return err
	})
	if statusOf(err) == http.StatusNotFound {
		return nil, &ChartNotFoundError{Chart: req.Name, Repository: req.Repository}
	}
	if err != nil {
		return nil, registryError("listing tags of", ref, req.Credentials, err)
	}
	index := repo.NewIndexFile()
	index.Entries[req.Name] = repo.ChartVersions{}
	for _, tag := range tags {
		md := &chart.Metadata{Name: req.Name, Version: tag}
		index.Entries[req.Name] = append(index.Entries[req.Name], &repo.ChartVersion{Metadata: md})
	}
	index.SortEntries()
	return index, nil
}

// manifestDigest resolves a version's tag to its manifest's digest, which
// keys the chart in the cache; once per look at the tags.
func (f *Fetcher) manifestDigest(ctx context.Context, req ChartRequest, ref, version string, vs *versions) (digest, error) {
	if d, ok := vs.pinned(version); ok {
		return d, nil
	}
	var resolved string
	err := f.withRegistry(ctx, req, ref, func(c *registry.Client) error {
		desc, err := c.Resolve(ref + ":" + strings.ReplaceAll(version, "+", "_"))
		resolved = desc.Digest.String()
		return err
	})
	if err != nil {
		return digest{}, registryError("resolving", ref+":"+version, req.Credentials, err)
	}
	d, err := parseDigest(resolved)
	if err != nil {
		return digest{}, fmt.Errorf("resolving %s: manifest %w", ref+":"+version, err)
	}
	vs.pin(version, d)
	return d, nil
}

// pullChart pulls the chart of a manifest, by digest, checks the chart
// layer and expands it into tmp.
func (f *Fetcher) pullChart(ctx context.Context, req ChartRequest, ref string, manifest digest, tagged, version, tmp string) (entryMeta, error) {
	var pulled *registry.PullResult
	err := f.withRegistry(ctx, req, ref, func(c *registry.Client) (err error) {
		pulled, err = c.Pull(ref + "@" + manifest.String())
		return err
	})
	if err != nil {
		return entryMeta{}, registryError("pulling", tagged, req.Credentials, err)
	}
	layer, err := parseDigest(pulled.Chart.Digest)
	if err != nil {
		return entryMeta{}, fmt.Errorf("pulling %s: chart layer %w", tagged, err)
	}
	if got := digestOf(layer.algorithm, pulled.Chart.Data); got != layer {
		return entryMeta{}, &DigestMismatchError{URL: tagged, Want: layer.String(), Got: got.String()}
	}
	return chartMeta(tmp, pulled.Chart.Data, tagged, version, layer)
}

// withRegistry runs do with a Helm registry client whose requests run under
// ctx and f.timeout, trust req's CA, and authenticate with req's login, if
// any, and nothing else.
func (f *Fetcher) withRegistry(ctx context.Context, req ChartRequest, ref string, do func(*registry.Client) error) error {
	base, err := f.clientFor(req.Credentials)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	transport := base.Transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	client := *base
	client.Transport = contextTransport{ctx: ctx, base: transport}
	authorizer := f.authorizer(req, ref, &client)
	opts := []registry.ClientOption{
		registry.ClientOptHTTPClient(&client),
		registry.ClientOptAuthorizer(*authorizer),
		registry.ClientOptCredentialsFile(filepath.Join(f.cache.dir, unusedCredentialsFile)),
		registry.ClientOptWriter(io.Discard),
	}
	if req.Insecure {
		opts = append(opts, registry.ClientOptPlainHTTP())
	}
	c, err := registry.NewClient(opts...)
	if err != nil {
		return err
	}
	return do(c)
}

// authorizer returns the client that authenticates to ref's registry with
// req's login, if any, and nothing else, sending requests through client.
func (f *Fetcher) authorizer(req ChartRequest, ref string, client *http.Client) *auth.Client {
	host, _, _ := strings.Cut(ref, "/")
	authorizer := &auth.Client{Client: client, Cache: f.authCache(req, host)}
	if req.Credentials.hasLogin() {
		login := auth.Credential{Username: req.Credentials.Username, Password: req.Credentials.Password, AccessToken: req.Credentials.Token}
		authorizer.Credential = auth.StaticCredential(host, login)
	}
	return authorizer
}

// repository returns the OCI repository ref (host/path/name) as req sees
// it: its CA, login and plain HTTP if Insecure. Its calls run under the
// context they are given.
func (f *Fetcher) repository(req ChartRequest, ref string) (*remote.Repository, error) {
	client, err := f.clientFor(req.Credentials)
	if err != nil {
		return nil, err
	}
	repository, err := remote.NewRepository(ref)
	if err != nil {
		return nil, fmt.Errorf("oci://%s: %w", ref, err)
	}
	repository.Client = f.authorizer(req, ref, client)
	repository.PlainHTTP = req.Insecure
	return repository, nil
}

// authCache returns the cache of authentication schemes and tokens for a
// registry host as seen with req's credentials, shared by the clients
// withRegistry makes.
func (f *Fetcher) authCache(req ChartRequest, host string) auth.Cache {
	key := sourceKey(req.Credentials, "oci", host, strconv.FormatBool(req.Insecure))
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.authCaches[key]
	if !ok {
		c = auth.NewCache()
		f.authCaches[key] = c
	}
	return c
}

// contextTransport runs every request under ctx: the Helm registry client
// makes its requests under context.Background(), and this is how the
// caller's cancellation and the timeout reach them.
type contextTransport struct {
	ctx  context.Context
	base http.RoundTripper
}

// Each request has a span of its own when the caller's span records: the
// method, and the URL without its query (a redirect to a blob store may
// carry a signature there).
func (t contextTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, span := startSpan(t.ctx, r.Method)
	if span.IsRecording() {
		u := *r.URL
		u.RawQuery, u.User = "", nil
		span.SetAttributes(attribute.String("http.request.method", r.Method), attribute.String("url.full", u.String()))
	}
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if span.IsRecording() && resp != nil {
		span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	}
	spans.End(span, err)
	return resp, err
}

// statusOf returns the HTTP status of a registry's error response, or 0.
func statusOf(err error) int {
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		return resp.StatusCode
	}
	return 0
}

// registryError turns an error of the registry client into an AuthError,
// an HTTPError or a wrapped network error, naming what was being done.
func registryError(action, ref string, creds *Credentials, err error) error {
	if errors.Is(err, auth.ErrBasicCredentialNotFound) { // asked for a login, had none
		return &AuthError{URL: "oci://" + ref, StatusCode: http.StatusUnauthorized, Anonymous: true}
	}
	var resp *errcode.ErrorResponse
	if !errors.As(err, &resp) {
		return fmt.Errorf("%s oci://%s: %w", action, ref, unwrapURLError(err))
	}
	shown := "oci://" + ref
	if resp.URL != nil {
		shown = resp.URL.Redacted()
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return &AuthError{URL: "oci://" + ref, StatusCode: resp.StatusCode, Anonymous: !creds.hasLogin()}
	}
	return fmt.Errorf("%s oci://%s: %w", action, ref, &HTTPError{URL: shown, StatusCode: resp.StatusCode})
}
