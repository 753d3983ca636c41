package dashboard

import (
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/wavekit-dev/wavekit/pkg/dashboard/session"
)

// Handler serves the page; see New.
type Handler struct {
	opts Options
	// codec seals the page's cookies and makes its CSRF tokens.
	codec *session.Codec
	// kinds grow while the page runs (the kinds definitions define):
	// read them with componentKinds.
	kindsMu sync.RWMutex
	kinds   []kindInfo
	sets    []setKindInfo
	// definitions, when set, are the definitions of kinds (definitions.go).
	definitions *definitions
	store       *store
	live        *broker
	mux         *http.ServeMux
	// renders holds a slot for each page being built; see oneAtATime.
	renders chan struct{}
}

// maxFormBytes bounds the body of the login form and of an action, the
// requests with a body.
const maxFormBytes = 16 << 10

// contentSecurityPolicy allows the page's own script, styles and
// connections only, no inline script, and no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func (h *Handler) routes() {
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /{$}", h.authed(h.fewAtATime(h.serveOverview)))
	h.mux.HandleFunc("GET /c/{kind}/{namespace}/{name}", h.authed(h.fewAtATime(h.serveComponent)))
	h.mux.HandleFunc("GET /s/{kind}/{namespace}/{name}", h.authed(h.fewAtATime(h.serveSet)))
	h.mux.HandleFunc("GET /live", h.authed(h.serveLive))
	h.mux.HandleFunc("GET /login", h.serveLoginForm)
	h.mux.HandleFunc("POST /login", h.serveLogin)
	h.mux.HandleFunc("GET /logout", h.serveLogout)
	h.mux.HandleFunc("GET /auth/signin", h.serveSignIn)
	h.mux.HandleFunc("GET /auth/callback", h.serveCallback)
	h.mux.HandleFunc("POST /act/{kind}/{namespace}/{name}/{action}", h.authed(h.serveAction))
	h.mux.Handle("GET /static/", staticHandler())
}

// ServeHTTP answers GET and HEAD (and the POSTs of the login form and of
// actions) with strict headers; any other method gets 405.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	header := w.Header()
	header.Set("Content-Security-Policy", contentSecurityPolicy)
	header.Set("X-Content-Type-Options", "nosniff")
	header.Set("X-Frame-Options", "DENY")
	header.Set("Referrer-Policy", "no-referrer")
	header.Set("Cross-Origin-Opener-Policy", "same-origin")
	header.Set("Cache-Control", "no-store")
	if h.opts.Auth == nil && !localHost(r.Host) {
		http.Error(w, "this page answers on 127.0.0.1 only", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !h.takesPost(r) {
		header.Set("Allow", "GET, HEAD")
		http.Error(w, "only GET and HEAD here", http.StatusMethodNotAllowed)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	h.mux.ServeHTTP(w, r)
}

// anonymous makes v the anonymous user, if the page has one: read-only
// (not logged in), and only for a request that carries no credential, so
// that an expired session is still sent to sign in again.
func (h *Handler) anonymous(r *http.Request, v *viewer) bool {
	if h.opts.Anonymous == nil {
		return false
	}
	if _, err := r.Cookie(sessionCookie); err == nil {
		return false
	}
	v.user = *h.opts.Anonymous
	return true
}

// takesPost tells whether r is a POST the page takes: the login form's,
// with Auth, and an action's, with Actions.
func (h *Handler) takesPost(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	return (r.URL.Path == "/login" && h.opts.Auth != nil) || (h.opts.Actions != nil && strings.HasPrefix(r.URL.Path, "/act/"))
}

// localHost tells whether a request's Host is the loopback the page
// without Auth listens on: another name, one a web page could make
// resolve to 127.0.0.1 (DNS rebinding), would let that page read and act
// with the user's credentials.
func localHost(host string) bool {
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		name = host
	}
	return name == "127.0.0.1" || name == "localhost" || name == "::1"
}

// viewerHandler is a route that needs to know its viewer.
type viewerHandler func(w http.ResponseWriter, r *http.Request, v *viewer)

// authed finds who the request comes from, if the page has Auth: without
// a token or a session the answer is 401 and nothing else, or, with
// sign-in, a redirect to it.
func (h *Handler) authed(next viewerHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := &viewer{auth: h.opts.Auth, log: h.opts.Log, seen: h.live.now(), session: "local"}
		switch {
		case h.opts.Auth != nil && !h.identify(r, v):
			h.unauthorized(w, r)
			return
		case h.opts.Auth == nil && h.opts.Actions != nil:
			v.user.Username = h.opts.Actions.User
		}
		next(w, r, v)
	}
}

// identify sets the viewer's user from the request's token, else from its
// signed-in session, and tells whether it found one.
func (h *Handler) identify(r *http.Request, v *viewer) bool {
	if token := requestToken(r); token != "" {
		user, err := h.opts.Auth.Authenticate(r.Context(), token)
		if err != nil {
			return false
		}
		v.user, v.session, v.loggedIn = user, "token/"+hashToken(token), true
		return true
	}
	s, ok := h.signedIn(r)
	if !ok {
		return h.anonymous(r, v)
	}
	v.user, v.session, v.loggedIn = User{Username: s.Name, Groups: s.Groups}, "session/"+s.ID, true
	return true
}

// requestToken is the bearer token of the Authorization header, else of
// the login cookie.
func requestToken(r *http.Request) string {
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, token, ok := strings.Cut(auth, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(token)
		}
		return ""
	}
	if c, err := r.Cookie(tokenCookie); err == nil {
		return c.Value
	}
	return ""
}

// maxConcurrentRenders bounds the pages built at once. A page of 1 000
// Components takes a few megabytes while it is built: ten viewers loading
// it at the same moment would raise the operator's peak memory by that
// much each, while building them one after the other costs the same CPU.
const maxConcurrentRenders = 2

// fewAtATime lets next build its page once one of maxConcurrentRenders
// slots is free; a request that ends while it waits gets nothing.
func (h *Handler) fewAtATime(next viewerHandler) viewerHandler {
	return func(w http.ResponseWriter, r *http.Request, v *viewer) {
		select {
		case h.renders <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		defer func() { <-h.renders }()
		next(w, r, v)
	}
}

// componentKinds are the kinds of components the page shows now.
func (h *Handler) componentKinds() []kindInfo {
	h.kindsMu.RLock()
	defer h.kindsMu.RUnlock()
	return append([]kindInfo(nil), h.kinds...)
}
