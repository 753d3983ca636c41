package apicount

import (
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"

	"k8s.io/client-go/rest"
)

// Proxy stands between a process (an operator binary, agents) and the API
// server and counts the requests it forwards. It adds no identity: it
// passes on the caller's own credential (a ServiceAccount's token), so the
// API server authorizes the caller as its RBAC says.
type Proxy struct {
	// Counter counts what the proxy forwards.
	Counter *Counter
	server  *httptest.Server
	// observe, when set, sees every request before it is forwarded.
	observe func(*http.Request)
}

// StartProxy serves a counting proxy of cfg's API server on a loopback
// port, over TLS (client-go sends no token over plain HTTP); observe, when
// not nil, sees each request. Close stops it.
func StartProxy(cfg *rest.Config, observe func(*http.Request)) (*Proxy, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("the API server's address %q: %w", cfg.Host, err)
	}
	transport, err := rest.TransportFor(&rest.Config{Host: cfg.Host, TLSClientConfig: rest.TLSClientConfig{CAData: cfg.CAData, CAFile: cfg.CAFile}})
	if err != nil {
		return nil, fmt.Errorf("a transport to the API server: %w", err)
	}
	p := &Proxy{Counter: New(), observe: observe}
	p.server = httptest.NewUnstartedServer(&httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = target.Host },
		Transport:     roundTripper{next: p.observing(transport), counter: p.Counter},
		FlushInterval: -1, // watches stream
		// A caller that went away (a watch stopped) is no error to log.
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) },
	})
	p.server.EnableHTTP2 = true
	p.server.StartTLS()
	return p, nil
}

func (p *Proxy) observing(rt http.RoundTripper) http.RoundTripper {
	if p.observe == nil {
		return rt
	}
	return observer{next: rt, observe: p.observe}
}

type observer struct {
	next    http.RoundTripper
	observe func(*http.Request)
}

func (o observer) RoundTrip(req *http.Request) (*http.Response, error) {
	o.observe(req)
	return o.next.RoundTrip(req)
}

// Config reaches the API server through the proxy with token (a client
// certificate would end at the proxy's TLS).
func (p *Proxy) Config(token string) *rest.Config {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.server.Certificate().Raw})
	return &rest.Config{Host: p.server.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
}

// Close stops the proxy.
func (p *Proxy) Close() { p.server.Close() }
