package bench_test

import (
	"encoding/pem"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/pkg/apirequest"
)

// apiProxy stands between an operator process and the API server and
// counts the requests it forwards by verb and resource, with a counting
// http.RoundTripper: every request the operator sends, its manager's
// (status writes, Events, kept renders) included, which its own
// wavekit_api_requests_total leaves to the targets. It forwards the
// operator's own credentials (its ServiceAccount's token), so the API
// server authorizes the operator as the chart's RBAC says.
type apiProxy struct {
	server *httptest.Server

	mu     sync.Mutex
	counts requestCounts
}

// requestCounts are requests by "verb resource", e.g. "get secrets".
type requestCounts map[string]int

// startAPIProxy serves a proxy of cfg's API server on a loopback port, over
// TLS (client-go sends no credentials over plain HTTP), until the
// benchmark ends.
func startAPIProxy(b *testing.B, cfg *rest.Config) *apiProxy {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		b.Fatal(err)
	}
	// Anonymous: the proxy adds no identity, it passes the operator's on.
	transport, err := rest.TransportFor(&rest.Config{Host: cfg.Host, TLSClientConfig: rest.TLSClientConfig{CAData: cfg.CAData, CAFile: cfg.CAFile}})
	if err != nil {
		b.Fatal(err)
	}
	p := &apiProxy{counts: requestCounts{}}
	p.server = httptest.NewUnstartedServer(&httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = target.Host },
		Transport:     p.counting(transport),
		FlushInterval: -1, // watches stream
	})
	// HTTP/2, as kube-apiserver speaks it: an operator's watches share one
	// connection. Over HTTP/1.1 each watch held a TLS connection of its own
	// (two goroutines and its buffers in the operator), which a process
	// serving many kinds, with a watch each, paid and no real one does.
	p.server.EnableHTTP2 = true
	p.server.StartTLS()
	b.Cleanup(p.server.Close)
	return p
}

// config is a client configuration that reaches the API server through
// the proxy with token.
func (p *apiProxy) config(token string) *rest.Config {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.server.Certificate().Raw})
	return &rest.Config{Host: p.server.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
}

// counting counts each request before rt sends it.
func (p *apiProxy) counting(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		key := apirequest.Verb(req) + " " + apirequest.Resource(req.URL.Path)
		p.mu.Lock()
		p.counts[key]++
		p.mu.Unlock()
		return rt.RoundTrip(req)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// snapshot returns the counts so far.
func (p *apiProxy) snapshot() requestCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.counts)
}

// writeVerbs are the verbs that change something.
var writeVerbs = map[string]bool{"create": true, "update": true, "patch": true, "apply": true, "delete": true}

// minus returns the counts that grew since before.
func (c requestCounts) minus(before requestCounts) requestCounts {
	out := requestCounts{}
	for key, n := range c {
		if n > before[key] {
			out[key] = n - before[key]
		}
	}
	return out
}

// add adds other's counts to c.
func (c requestCounts) add(other requestCounts) {
	for key, n := range other {
		c[key] += n
	}
}

// total returns the requests of the verbs for which keep is true.
func (c requestCounts) total(keep func(verb, resource string) bool) int {
	n := 0
	for key, count := range c {
		verb, resource, _ := strings.Cut(key, " ")
		if keep(verb, resource) {
			n += count
		}
	}
	return n
}

// writes is the number of requests that changed something.
func (c requestCounts) writes() int {
	return c.total(func(verb, _ string) bool { return writeVerbs[verb] })
}

// nonWatch is the number of requests other than watches (which stay open).
func (c requestCounts) nonWatch() int {
	return c.total(func(verb, _ string) bool { return verb != "watch" })
}

// String lists the counts, largest first.
func (c requestCounts) String() string {
	keys := make([]string, 0, len(c))
	for key := range c {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return c[keys[i]] > c[keys[j]] || c[keys[i]] == c[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, key := range keys {
		parts[i] = key + ": " + strconv.Itoa(c[key])
	}
	return strings.Join(parts, ", ")
}
