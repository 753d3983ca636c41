package pullrequests

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/wavekit-dev/wavekit/internal/inputs"
)

// Bounds of a listing.
const (
	// maxPulls bounds the open pull requests of a repository.
	maxPulls = 1000
	// maxPageBytes bounds one page's body.
	maxPageBytes = 8 << 20
)

// listing is a repository's open pull requests as one read found them.
type listing struct {
	at    time.Time
	pulls []pull
	// etag is the first page's, when the listing is that page alone: only
	// such a listing is asked again conditionally.
	etag string
}

// fresh tells whether l answers a read with opts at now: read within the
// interval, and after the time the read asks since.
func (l *listing) fresh(now time.Time, opts inputs.ReadOptions) bool {
	if l == nil || now.Sub(l.at) >= opts.Interval {
		return false
	}
	return opts.Since.IsZero() || !l.at.Before(opts.Since)
}

// failedAnswers is how long a failed read answers the reads of its
// listing that follow, at most: the sets of a repository whose API fails
// do not each ask it again at every pass.
const failedAnswers = 10 * time.Second

// failure is a read that failed.
type failure struct {
	at  time.Time
	err error
}

// answers tells whether f answers a read with opts at now: it is recent
// (failedAnswers, or the interval when shorter) and not older than the
// time the read asks since.
func (f failure) answers(now time.Time, opts inputs.ReadOptions) bool {
	if f.err == nil || now.Sub(f.at) >= min(failedAnswers, opts.Interval) {
		return false
	}
	return opts.Since.IsZero() || !f.at.Before(opts.Since)
}

// list reads the listing of api: conditionally when previous is one page,
// whose 304 keeps it.
func (s *Source) list(ctx context.Context, a api, creds credentials, previous *listing) (*listing, error) {
	httpClient, err := s.clientFor(creds)
	if err != nil {
		return nil, err
	}
	read := &listing{at: s.now()}
	page := a.firstPage()
	for n := 1; page != ""; n++ {
		etag := ""
		if n == 1 && previous != nil {
			etag = previous.etag
		}
		resp, body, err := s.get(ctx, httpClient, a, creds, page, etag)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusNotModified {
			return &listing{at: read.at, pulls: previous.pulls, etag: previous.etag}, nil
		}
		pulls, err := a.decode(body)
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", redact(page), err)
		}
		read.pulls = append(read.pulls, pulls...)
		if len(read.pulls) > maxPulls {
			return nil, fmt.Errorf("%s %s has more than %d open pull requests, more than a set reads", a.provider, a.repo, maxPulls)
		}
		next := a.nextPage(resp, page)
		if next != "" && !sameOrigin(next, page) {
			return nil, fmt.Errorf("%s: the next page is on another host (%s): the token goes to the API's host only", redact(page), redact(next))
		}
		if n == 1 && next == "" {
			read.etag = resp.Header.Get("ETag")
		}
		page = next
	}
	return read, nil
}

// get sends one request (If-None-Match etag when not empty) and returns its
// answer: 200 with its body, or 304; anything else is an error.
func (s *Source) get(ctx context.Context, c *http.Client, a api, creds credentials, page, etag string) (*http.Response, []byte, error) {
	if err := s.waitingFor(a.host()); err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, page, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", redact(page), err)
	}
	req.Header.Set("Accept", "application/json")
	a.authorize(req, creds.token)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("listing the pull requests of %s: %w", a.repo, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPageBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", redact(page), err)
	}
	if len(body) > maxPageBytes {
		return nil, nil, fmt.Errorf("%s: a page larger than %d MiB", redact(page), maxPageBytes>>20)
	}
	s.noteLimit(a.host(), resp)
	if err := answerError(a, creds, resp, body, s.now()); err != nil {
		return nil, nil, err
	}
	return resp, body, nil
}

// sameOrigin tells whether two URLs have one scheme and host.
func sameOrigin(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}

// stayOnHost refuses a redirect to another scheme or host: the token
// (GitLab's PRIVATE-TOKEN is not a header Go drops) goes to the API's host
// only.
func stayOnHost(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return fmt.Errorf("more than 5 redirects")
	}
	if req.URL.Scheme != via[0].URL.Scheme || req.URL.Host != via[0].URL.Host {
		return fmt.Errorf("a redirect to another host (%s): the token goes to the API's host only", req.URL.Host)
	}
	return nil
}

// clientFor is the HTTP client of creds: the Source's, or one that also
// trusts creds' CA.
func (s *Source) clientFor(creds credentials) (*http.Client, error) {
	if len(creds.ca) == 0 {
		return s.client, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(creds.ca) {
		return nil, fmt.Errorf("secretRef: the ca.crt of Secret %s holds no PEM certificate", creds.secret)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Timeout: s.client.Timeout, Transport: transport, CheckRedirect: stayOnHost}, nil
}
