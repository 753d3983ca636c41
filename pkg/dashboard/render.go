package dashboard

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// pages are the page templates, each with the layout.
var pages = parsePages("overview", "component", "set", "login", "message")

func parsePages(names ...string) map[string]*template.Template {
	funcs := template.FuncMap{"ago": ago, "stamp": stamp}
	out := map[string]*template.Template{}
	for _, name := range names {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).
			ParseFS(templateFiles, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

// ago is how long ago t was, as kubectl shows ages; "" for no time.
func ago(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return duration.HumanDuration(time.Since(t))
}

// stamp is t in RFC 3339, UTC.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// layoutData is what every page has.
type layoutData struct {
	Title string
	// Live is the URL of the page's live stream; empty for none.
	Live string
	// LoggedIn shows the logout link.
	LoggedIn bool
	// User is who is logged in, if the page knows them.
	User string
	// LogIn shows the login link: an anonymous viewer of a page with Auth.
	LogIn bool
	// CSRF is the token the viewer's forms (and a script's POSTs) carry.
	CSRF string
}

// layout is the layout of a page for v.
func (h *Handler) layout(v *viewer, title, live string) layoutData {
	if live != "" {
		// The stream tells the page at once of a change it was built
		// before and would otherwise miss.
		sep := "?"
		if strings.Contains(live, "?") {
			sep = "&"
		}
		live += sep + "since=" + strconv.FormatUint(v.seen, 10)
	}
	l := layoutData{Title: title, Live: live, LoggedIn: v.loggedIn, User: v.user.Username, LogIn: h.opts.Auth != nil && !v.loggedIn}
	if v.loggedIn || (h.opts.Auth == nil && h.opts.Actions != nil) {
		l.CSRF = h.codec.CSRFToken(v.session)
	}
	return l
}

// buffers are the pages' buffers, kept between renders so that a page of
// a thousand rows does not grow a new one from nothing each time.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxKeptBuffer is the largest buffer kept for the next render.
const maxKeptBuffer = 4 << 20

// render executes a page into a buffer first, so that an error never
// leaves half a page.
func (h *Handler) render(w http.ResponseWriter, status int, name string, data any) {
	buf := buffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxKeptBuffer {
			buf.Reset()
			buffers.Put(buf)
		}
	}()
	if err := pages[name].Execute(buf, data); err != nil {
		h.opts.Log.Error(err, "rendering the dashboard", "page", name)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// messagePage is a page that only says something.
type messagePage struct {
	layoutData
	Heading string
	Text    string
	Login   bool
}

// message answers with a short page and no data.
func (h *Handler) message(w http.ResponseWriter, status int, heading, text string, login bool) {
	h.render(w, status, "message", messagePage{layoutData: layoutData{Title: h.opts.Title}, Heading: heading, Text: text, Login: login})
}

// unauthorized sends a browser to the sign-in, if the page has one, and
// answers anything else 401 with nothing but a link to the login form.
func (h *Handler) unauthorized(w http.ResponseWriter, r *http.Request) {
	if h.wantsSignIn(r) {
		http.Redirect(w, r, "/auth/signin?return="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="wavekit"`)
	h.message(w, http.StatusUnauthorized, "Log in", "This page needs a Kubernetes token.", true)
}

// notFound answers 404, the same for a component that does not exist and
// one the viewer may not see.
func (h *Handler) notFound(w http.ResponseWriter) {
	h.message(w, http.StatusNotFound, "Not found", "No such component, or you may not see it.", false)
}

// staticHandler serves the embedded script and styles.
func staticHandler() http.Handler {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err)
	}
	files := http.FileServer(http.FS(sub))
	return http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		files.ServeHTTP(w, r)
	}))
}
