package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/dashboard/oidc"
	"github.com/wavekit-dev/wavekit/pkg/dashboard/session"
)

// The cookies of a sign-in: the session, and the sign-in under way while
// the browser is at the provider.
const (
	sessionCookie = "wavekit-dashboard-session"
	flowCookie    = "wavekit-dashboard-signin"
)

const (
	// flowLifetime is how long a sign-in may stay at the provider.
	flowLifetime = 10 * time.Minute
	// defaultSessionLifetime is SignIn.Lifetime's default.
	defaultSessionLifetime = 8 * time.Hour
	// maxSessionCookie is the longest session cookie (browsers keep 4 KiB
	// a cookie, name and attributes included).
	maxSessionCookie = 3800
)

// signedInSession is what the session cookie holds: who signed in, and
// the random id their CSRF token is made of.
type signedInSession struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Groups []string `json:"groups,omitempty"`
}

// signedIn is the request's session, if it has one that opens.
func (h *Handler) signedIn(r *http.Request) (signedInSession, bool) {
	var s signedInSession
	if h.opts.SignIn == nil {
		return s, false
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return s, false
	}
	return s, h.codec.Open(sessionCookie, c.Value, &s) == nil
}

// serveSignIn sends the browser to the provider, keeping the sign-in in a
// sealed cookie until it comes back.
func (h *Handler) serveSignIn(w http.ResponseWriter, r *http.Request) {
	if h.opts.SignIn == nil || h.opts.Auth == nil {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	authURL, flow, err := h.opts.SignIn.Provider.Begin(r.Context(), localPath(r.URL.Query().Get("return")))
	if err != nil {
		h.opts.Log.Error(err, "starting a sign-in")
		h.message(w, http.StatusBadGateway, "Sign-in unavailable", "The OpenID Connect provider did not answer. Try again, or log in with a token.", true)
		return
	}
	sealed, err := h.codec.Seal(flowCookie, flow, time.Now().Add(flowLifetime))
	if err != nil {
		h.opts.Log.Error(err, "starting a sign-in")
		h.message(w, http.StatusInternalServerError, "Sign-in failed", "The page could not start a sign-in.", true)
		return
	}
	// Lax: the provider sends the browser back with a cross-site GET.
	setCookie(w, flowCookie, sealed, flowLifetime)
	http.Redirect(w, r, authURL, http.StatusSeeOther)
}

// serveCallback finishes a sign-in and starts the session.
func (h *Handler) serveCallback(w http.ResponseWriter, r *http.Request) {
	if h.opts.SignIn == nil || h.opts.Auth == nil {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	var flow oidc.Flow
	c, err := r.Cookie(flowCookie)
	if err != nil || h.codec.Open(flowCookie, c.Value, &flow) != nil {
		h.message(w, http.StatusBadRequest, "Sign in again", "This sign-in expired, or began in another browser.", true)
		return
	}
	setCookie(w, flowCookie, "", -1)
	query := r.URL.Query()
	if refused := query.Get("error"); refused != "" {
		h.message(w, http.StatusUnauthorized, "Sign-in refused", "The provider said: "+refused+" "+query.Get("error_description"), true)
		return
	}
	user, err := h.opts.SignIn.Provider.Finish(r.Context(), flow, query.Get("state"), query.Get("code"))
	if err != nil {
		h.opts.Log.Error(err, "finishing a sign-in")
		h.message(w, http.StatusUnauthorized, "Sign-in failed", err.Error(), true)
		return
	}
	if !h.startSession(w, user) {
		return
	}
	h.opts.Log.Info("signed in", "user", user.Name, "groups", user.Groups)
	http.Redirect(w, r, flow.Return, http.StatusSeeOther)
}

// startSession sets the session cookie of user, or says why it cannot.
func (h *Handler) startSession(w http.ResponseWriter, user oidc.User) bool {
	lifetime := h.opts.SignIn.Lifetime
	if lifetime <= 0 {
		lifetime = defaultSessionLifetime
	}
	s := signedInSession{ID: session.NewID(), Name: user.Name, Groups: user.Groups}
	sealed, err := h.codec.Seal(sessionCookie, s, time.Now().Add(lifetime))
	if err != nil || len(sealed) > maxSessionCookie {
		h.message(w, http.StatusInternalServerError, "Sign-in failed",
			"The session does not fit in a cookie: the provider named too many groups. Ask for fewer with the groups claim or scope.", true)
		return false
	}
	setCookie(w, sessionCookie, sealed, lifetime)
	return true
}

// setCookie sets (or, with a negative lifetime, clears) an HttpOnly,
// Secure, SameSite=Lax cookie of the page.
func setCookie(w http.ResponseWriter, name, value string, lifetime time.Duration) {
	maxAge := int(lifetime.Seconds())
	if lifetime < 0 {
		maxAge = -1
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
}

// localPath is path if it is one of the page's own, else "/": a sign-in
// never sends the browser to another site.
func localPath(path string) string {
	u, err := url.Parse(path)
	if err != nil || path == "" || !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") ||
		strings.Contains(path, "\\") || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return path
}

// wantsSignIn tells whether an unauthenticated request should go to the
// sign-in: a browser's navigation, on a page with sign-in.
func (h *Handler) wantsSignIn(r *http.Request) bool {
	return h.opts.SignIn != nil && r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html")
}
