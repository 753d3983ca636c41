package gitserver

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	gliderssh "github.com/gliderlabs/ssh"
	"golang.org/x/crypto/ssh"
)

// Options configure a Server.
type Options struct {
	// Username and Password, when set, are required by the HTTP server.
	Username, Password string
	// TLS serves HTTPS with a certificate of the test's own CA (CA()).
	TLS bool
	// ClientCertificates, with TLS, requires a client certificate: the
	// one ClientCertificate returns.
	ClientCertificates bool
}

// Counts are the requests one repository got.
type Counts struct {
	// InfoRefs are HTTP ref advertisements (GET …/info/refs).
	InfoRefs int
	// UploadPacks are HTTP fetches (POST …/git-upload-pack).
	UploadPacks int
	// SSHSessions are SSH sessions of git-upload-pack (each begins with a
	// ref advertisement).
	SSHSessions int
}

// Server serves the bare repositories under Root.
type Server struct {
	Root string
	http *httptest.Server
	ssh  *gliderssh.Server
	sshL net.Listener

	hostKey   ssh.Signer
	clientKey ed25519.PrivateKey
	clients   *clientCA

	mu     sync.Mutex
	counts map[string]*Counts
}

// Start serves repositories under a new directory of dir.
func Start(dir string, opts Options) (*Server, error) {
	backend, err := httpBackend()
	if err != nil {
		return nil, err
	}
	s := &Server{Root: filepath.Join(dir, "repos"), counts: map[string]*Counts{}}
	if err := os.MkdirAll(s.Root, 0o755); err != nil {
		return nil, err
	}
	cgiHandler := &cgi.Handler{Path: backend, Root: "/", Env: []string{"GIT_PROJECT_ROOT=" + s.Root, "GIT_HTTP_EXPORT_ALL=1"}}
	s.http = httptest.NewUnstartedServer(s.counting(basicAuth(opts, cgiHandler)))
	if opts.TLS && opts.ClientCertificates {
		if s.clients, err = newClientCA(); err != nil {
			return nil, err
		}
		s.http.TLS = s.clients.tlsConfig()
	}
	if opts.TLS {
		s.http.StartTLS()
	} else {
		s.http.Start()
	}
	if err := s.startSSH(); err != nil {
		s.http.Close()
		return nil, err
	}
	return s, nil
}

// httpBackend finds git-http-backend in git's exec path.
func httpBackend() (string, error) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return "", fmt.Errorf("the git program is needed (make git-tools installs it): %w", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		return "", fmt.Errorf("git-http-backend is needed (make git-tools installs git): %w", err)
	}
	return backend, nil
}

func basicAuth(opts Options, next http.Handler) http.Handler {
	if opts.Username == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, password, ok := r.BasicAuth()
		if !ok || user != opts.Username || password != opts.Password {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// counting counts each request by repository and kind.
func (s *Server) counting(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		repo, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), ".git/")
		switch {
		case r.Method == http.MethodGet && rest == "info/refs":
			s.count(repo, func(c *Counts) { c.InfoRefs++ })
		case r.Method == http.MethodPost && rest == "git-upload-pack":
			s.count(repo, func(c *Counts) { c.UploadPacks++ })
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) count(repo string, add func(*Counts)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.counts[repo]
	if !ok {
		c = &Counts{}
		s.counts[repo] = c
	}
	add(c)
}

// Counts returns what repo (its name, as NewRepo took it) got so far.
func (s *Server) Counts(repo string) Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.counts[repo]; ok {
		return *c
	}
	return Counts{}
}

// HTTPURL is the URL of repo over HTTP(S).
func (s *Server) HTTPURL(repo string) string { return s.http.URL + "/" + repo + ".git" }

// SSHURL is the URL of repo over SSH.
func (s *Server) SSHURL(repo string) string {
	return "ssh://git@" + s.sshL.Addr().String() + "/" + repo + ".git"
}

// CA is the PEM certificate HTTPS is served with (Options.TLS).
func (s *Server) CA() []byte {
	if s.http.Certificate() == nil {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.http.Certificate().Raw})
}

// Close stops both servers.
func (s *Server) Close() error {
	s.http.Close()
	return errors.Join(s.ssh.Close(), nil)
}

// newEd25519 makes a key pair.
func newEd25519() (ed25519.PrivateKey, ssh.Signer, error) {
	_, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	signer, err := ssh.NewSignerFromKey(private)
	return private, signer, err
}
