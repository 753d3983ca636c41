package dashboard

import (
	"net/http"
	"strings"
	"time"
)

// tokenCookie holds the token the login form was given.
const tokenCookie = "wavekit-dashboard-token"

// cookieLifetime is how long the browser keeps the token.
const cookieLifetime = 8 * time.Hour

// loginPage is the login form.
type loginPage struct {
	layoutData
	Error string
	// SignIn offers the OpenID Connect sign-in.
	SignIn bool
}

func (h *Handler) serveLoginForm(w http.ResponseWriter, r *http.Request) {
	if h.opts.Auth == nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	h.render(w, http.StatusOK, "login", loginPage{layoutData: layoutData{Title: h.opts.Title}, SignIn: h.opts.SignIn != nil})
}

// serveLogin checks the token of the form and keeps it in an HttpOnly,
// Secure, SameSite=Strict cookie.
func (h *Handler) serveLogin(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the form is too large or malformed", http.StatusBadRequest)
		return
	}
	token := strings.TrimSpace(r.PostForm.Get("token"))
	if !h.acceptsToken(r, token) {
		h.render(w, http.StatusUnauthorized, "login", loginPage{layoutData: layoutData{Title: h.opts.Title},
			Error: "The API server did not accept this token.", SignIn: h.opts.SignIn != nil})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: token, Path: "/", MaxAge: int(cookieLifetime.Seconds()),
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// acceptsToken tells whether the API server accepts token.
func (h *Handler) acceptsToken(r *http.Request, token string) bool {
	if token == "" {
		return false
	}
	_, err := h.opts.Auth.Authenticate(r.Context(), token)
	return err == nil
}

// serveLogout forgets the token and the session.
func (h *Handler) serveLogout(w http.ResponseWriter, r *http.Request) {
	setCookie(w, sessionCookie, "", -1)
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
