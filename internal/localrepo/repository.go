package localrepo

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"

	"helm.sh/helm/v3/pkg/repo"
)

// Repository is a Helm repository on localhost.
type Repository struct {
	// URL of the repository: URL/index.yaml is its index.
	URL string

	dir    string
	server *httptest.Server
	mu     sync.Mutex
}

// NewRepository serves the charts in a new directory; Add publishes them.
func NewRepository() (*Repository, error) {
	return StartRepository(RepositoryOptions{})
}

// RepositoryOptions are what StartRepository may change of a repository.
type RepositoryOptions struct {
	// Username and Password are the login it requires, if a username is
	// set (basic authentication).
	Username, Password string
	// Wrap, if set, wraps the repository's handler, for example to count
	// the requests.
	Wrap func(http.Handler) http.Handler
}

// StartRepository serves the charts in a new directory with opts; Add
// publishes them.
func StartRepository(opts RepositoryOptions) (*Repository, error) {
	dir, err := os.MkdirTemp("", "wavekit-repo-")
	if err != nil {
		return nil, fmt.Errorf("chart repository: %w", err)
	}
	r := &Repository{dir: dir}
	h := http.FileServer(http.Dir(dir))
	if opts.Username != "" {
		h = basicAuth(opts.Username, opts.Password, h)
	}
	if opts.Wrap != nil {
		h = opts.Wrap(h)
	}
	r.server = httptest.NewServer(h)
	r.URL = r.server.URL
	return r, r.index()
}

// basicAuth answers 401 to a request without the login.
func basicAuth(username, password string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, p, ok := req.BasicAuth()
		if !ok || subtle.ConstantTimeCompare([]byte(u), []byte(username)) != 1 || subtle.ConstantTimeCompare([]byte(p), []byte(password)) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// Add packages charts and publishes them in the index.
func (r *Repository) Add(charts ...Chart) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ch := range charts {
		if _, err := PackageChart(r.dir, ch); err != nil {
			return err
		}
	}
	return r.index()
}

// index rewrites index.yaml from the packaged charts, with URLs relative
// to the repository, as helm repo index does.
func (r *Repository) index() error {
	index, err := repo.IndexDirectory(r.dir, "")
	if err != nil {
		return fmt.Errorf("indexing %s: %w", r.dir, err)
	}
	index.SortEntries()
	tmp := filepath.Join(r.dir, ".index.yaml")
	if err := index.WriteFile(tmp, 0o644); err != nil {
		return fmt.Errorf("writing the index: %w", err)
	}
	return os.Rename(tmp, filepath.Join(r.dir, "index.yaml"))
}

// Close stops serving and removes the charts.
func (r *Repository) Close() {
	r.server.Close()
	_ = os.RemoveAll(r.dir)
}
