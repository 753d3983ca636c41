package localregistry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/distribution/distribution/v3/configuration"
	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd" // the htpasswd access controller
	"github.com/distribution/distribution/v3/registry/handlers"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory" // the inmemory storage driver
	"github.com/sirupsen/logrus"
	"golang.org/x/crypto/bcrypt"
	"helm.sh/helm/v3/pkg/registry"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
)

// Registry is an OCI registry on localhost, over plain HTTP.
type Registry struct {
	// Host is host:port of the registry.
	Host string
	// Username and Password are the login it requires, if any.
	Username, Password string

	server *httptest.Server
	dir    string
}

// New starts a registry; with a username it requires that login.
func New(username, password string) (*Registry, error) {
	return Start(Options{Username: username, Password: password})
}

// Options are what Start may change of a registry.
type Options struct {
	// Username and Password are the login it requires, if a username is set.
	Username, Password string
	// Wrap, if set, wraps the registry's handler: the server answers with
	// Wrap(registry), for example to count the requests.
	Wrap func(http.Handler) http.Handler
	// Log receives the registry's logs, one line a request (logrus's output,
	// which is process-wide); nil discards them.
	Log io.Writer
}

// Start starts a registry with opts.
func Start(opts Options) (*Registry, error) {
	username, password := opts.Username, opts.Password
	dir, err := os.MkdirTemp("", "wavekit-registry-")
	if err != nil {
		return nil, err
	}
	config := &configuration.Configuration{}
	config.Storage = configuration.Storage{
		"inmemory":    configuration.Parameters{},
		"maintenance": configuration.Parameters{"uploadpurging": map[any]any{"enabled": false}},
	}
	config.HTTP.Secret = "local"
	if username != "" {
		hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
		if err != nil {
			return nil, err
		}
		htpasswd := filepath.Join(dir, "htpasswd")
		if err := os.WriteFile(htpasswd, []byte(username+":"+string(hash)+"\n"), 0o600); err != nil {
			return nil, err
		}
		config.Auth = configuration.Auth{"htpasswd": configuration.Parameters{"realm": "local", "path": htpasswd}}
	}
	logs := opts.Log
	if logs == nil {
		logs = io.Discard
	}
	logrus.SetOutput(logs) // the registry logs every request
	r := &Registry{Username: username, Password: password, dir: dir}
	var h http.Handler = handlers.NewApp(context.Background(), config)
	if opts.Wrap != nil {
		h = opts.Wrap(h)
	}
	r.server = httptest.NewServer(h)
	r.Host = strings.TrimPrefix(r.server.URL, "http://")
	return r, nil
}

// Repository is the oci:// URL of path in the registry.
func (r *Registry) Repository(path string) string { return "oci://" + r.Host + "/" + path }

// Push packages ch and pushes it to path/<name>:<version>.
func (r *Registry) Push(path string, ch localrepo.Chart) error {
	archive, err := localrepo.PackageChart(r.dir, ch)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		return err
	}
	opts := []registry.ClientOption{registry.ClientOptPlainHTTP(), registry.ClientOptCredentialsFile(filepath.Join(r.dir, "config.json"))}
	if r.Username != "" {
		opts = append(opts, registry.ClientOptBasicAuth(r.Username, r.Password))
	}
	client, err := registry.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("registry client: %w", err)
	}
	if _, err := client.Push(data, fmt.Sprintf("%s/%s/%s:%s", r.Host, path, ch.Name, ch.Version)); err != nil {
		return fmt.Errorf("pushing %s %s: %w", ch.Name, ch.Version, err)
	}
	return nil
}

// Close stops the registry.
func (r *Registry) Close() {
	r.server.Close()
	_ = os.RemoveAll(r.dir)
}
