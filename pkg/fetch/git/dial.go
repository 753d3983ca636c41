package git

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"golang.org/x/net/proxy"
)

// How a look or a fetch is bound to its context, which go-git does not do
// everywhere itself:
//
//   - SSH: go-git dials with a timeout but runs the SSH handshake on the
//     connection without any, so a server that accepts and never speaks
//     would hold a look forever. go-git dials through the proxy its
//     endpoint names, and x/net/proxy builds the dialers of schemes
//     registered with it: each SSH look and fetch names a proxy of
//     dialScheme, whose dialer (registered for that one operation) dials
//     directly or through the request's own proxy, sets the connection's
//     deadline to the operation's, and closes it when the operation ends.
//   - HTTP: go-git follows the redirects of a remote's first request (as
//     git does) and then talks to where they lead; the client installed
//     for http and https asks the request's Allow about that place first.

// dialScheme is the proxy scheme of the dialers bound to an operation.
const dialScheme = "wavekit-bound-dial"

func init() {
	proxy.RegisterDialerType(dialScheme, func(u *url.URL, _ proxy.Dialer) (proxy.Dialer, error) {
		bound.mu.Lock()
		defer bound.mu.Unlock()
		d, ok := bound.dialers[u.Host]
		if !ok {
			return nil, errors.New("the connection's operation has ended")
		}
		return d, nil
	})
	// The redirect check does nothing for a request that carries no Allow:
	// other users of go-git in the process see its own behaviour.
	redirecting := githttp.NewClient(&http.Client{Transport: http.DefaultTransport, CheckRedirect: checkRedirect})
	client.InstallProtocol("https", redirecting)
	client.InstallProtocol("http", redirecting)
}

// bound holds the dialers of the SSH operations under way, by token.
var bound = struct {
	mu      sync.Mutex
	dialers map[string]*boundDialer
}{dialers: map[string]*boundDialer{}}

// bind binds what r does under ctx to it: for SSH, the connection (opts
// is set to name its dialer); for HTTP, the redirects, which r.allow is
// asked about. done ends the binding.
func (r *remote) bind(ctx context.Context, opts *transport.ProxyOptions) (context.Context, func(), error) {
	if r.allow != nil {
		ctx = context.WithValue(ctx, allowKey{}, r.allow)
	}
	if r.hostKey == nil {
		return ctx, func() {}, nil
	}
	var token [16]byte
	if _, err := rand.Read(token[:]); err != nil {
		return nil, nil, err
	}
	name := hex.EncodeToString(token[:])
	bound.mu.Lock()
	bound.dialers[name] = &boundDialer{ctx: ctx, via: r.sshProxy}
	bound.mu.Unlock()
	*opts = transport.ProxyOptions{URL: dialScheme + "://" + name}
	return ctx, func() {
		bound.mu.Lock()
		delete(bound.dialers, name)
		bound.mu.Unlock()
	}, nil
}

// boundDialer dials the connections of one operation.
type boundDialer struct {
	ctx context.Context
	via *Proxy // the request's proxy, if any
}

func (d *boundDialer) Dial(network, addr string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, addr)
}

// DialContext dials addr within the operation's context (and dialCtx),
// and binds the connection to it: its deadline is the operation's, and it
// is closed when the operation ends.
func (d *boundDialer) DialContext(dialCtx context.Context, network, addr string) (net.Conn, error) {
	ctx, cancel := context.WithCancel(d.ctx)
	defer context.AfterFunc(dialCtx, cancel)()
	conn, err := d.dial(ctx, network, addr)
	cancel()
	if err != nil {
		return nil, err
	}
	if deadline, ok := d.ctx.Deadline(); ok {
		if err := conn.SetDeadline(deadline); err != nil {
			_ = conn.Close()
			return nil, err
		}
	}
	stop := context.AfterFunc(d.ctx, func() { _ = conn.Close() })
	return &boundConn{Conn: conn, stop: stop}, nil
}

func (d *boundDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if d.via == nil || d.via.URL == "" {
		var direct net.Dialer
		return direct.DialContext(ctx, network, addr)
	}
	u, err := url.Parse(d.via.URL)
	if err != nil {
		return nil, &RequestError{Field: "proxy", Err: errors.New("the proxy's address is not a URL")}
	}
	if d.via.Username != "" {
		u.User = url.UserPassword(d.via.Username, d.via.Password)
	}
	through, err := proxy.FromURL(u, proxy.Direct)
	if err != nil {
		return nil, &RequestError{Field: "proxy", Err: fmt.Errorf("SSH goes through a socks5:// proxy, not %s://", u.Scheme)}
	}
	if cd, ok := through.(proxy.ContextDialer); ok {
		return cd.DialContext(ctx, network, addr)
	}
	return through.Dial(network, addr)
}

// boundConn stops watching its operation once closed.
type boundConn struct {
	net.Conn
	stop func() bool
}

func (c *boundConn) Close() error {
	c.stop()
	return c.Conn.Close()
}

// allowKey carries a request's Allow in the context of its HTTP requests.
type allowKey struct{}

// checkRedirect asks the request's Allow about the repository a redirect
// leads to; go-git's own checks (git's policy: the first request only, no
// downgrade to http, no credentials to another origin) run besides.
func checkRedirect(req *http.Request, via []*http.Request) error {
	allow, _ := req.Context().Value(allowKey{}).(func(string) error)
	if allow == nil {
		return nil
	}
	to := repositoryOf(req.URL)
	if err := allow(to); err != nil {
		return &RedirectError{From: repositoryOf(via[0].URL), To: to, Err: err}
	}
	return nil
}

// repositoryOf is the repository URL of a smart HTTP request, without its
// user information: …/repo.git of …/repo.git/info/refs?service=….
func repositoryOf(u *url.URL) string {
	repo := *u
	repo.User, repo.RawQuery, repo.Fragment = nil, "", ""
	repo.Path = strings.TrimSuffix(repo.Path, "/info/refs")
	repo.RawPath = ""
	return repo.String()
}

// RedirectError says a remote redirected to a repository the request may
// not reach.
type RedirectError struct {
	From, To string
	Err      error
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirects to %s: %v", e.From, e.To, e.Err)
}

func (e *RedirectError) Unwrap() error { return e.Err }
