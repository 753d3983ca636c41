package git

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// remote is how one URL is reached: go-git's auth method and the TLS and
// proxy settings its options take.
type remote struct {
	url     string
	auth    transport.AuthMethod
	ca      []byte
	cert    []byte
	key     []byte
	proxy   transport.ProxyOptions // for HTTP
	hostKey *sshAuth               // for SSH: what refused a host key
	// sshProxy is the proxy SSH connections go through (bind).
	sshProxy *Proxy
	// allow is asked about a repository a redirect leads to (bind).
	allow func(url string) error
}

// remoteFor builds how rawURL is reached with a's credentials (nil:
// anonymously) through p; allow, if set, is asked about where a redirect
// leads.
func remoteFor(rawURL string, a *Auth, p *Proxy, timeout time.Duration, allow func(string) error) (*remote, error) {
	u, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	r := &remote{url: rawURL, allow: allow}
	if a == nil {
		a = &Auth{}
	}
	if u.Scheme == "ssh" {
		s, err := newSSHAuth(u, a, timeout)
		if err != nil {
			return nil, err
		}
		r.auth, r.hostKey, r.sshProxy = s, s, p
		return r, nil
	}
	if p != nil && p.URL != "" {
		r.proxy = transport.ProxyOptions{URL: p.URL, Username: p.Username, Password: p.Password}
	}
	r.ca, r.cert, r.key = a.CA, a.CertPEM, a.KeyPEM
	if (len(r.cert) == 0) != (len(r.key) == 0) {
		return nil, &RequestError{Field: "secretRef", Err: errors.New("a client certificate needs both tls.crt and tls.key")}
	}
	switch {
	case a.BearerToken != "":
		r.auth = &githttp.TokenAuth{Token: a.BearerToken}
	case a.Username != "" || a.Password != "":
		r.auth = &githttp.BasicAuth{Username: a.Username, Password: a.Password}
	}
	return r, nil
}

// sshAuth is go-git's SSH auth method with a host key check that never
// accepts an unknown key, and that remembers why it refused one.
type sshAuth struct {
	user       string
	methods    []ssh.AuthMethod
	hostPort   string
	hosts      *knownhosts.HostKeyDB
	timeout    time.Duration
	mu         sync.Mutex
	refusedKey *HostKeyError
}

func newSSHAuth(u *url.URL, a *Auth, timeout time.Duration) (*sshAuth, error) {
	if len(a.KnownHosts) == 0 {
		return nil, &RequestError{Field: "secretRef", Err: errors.New("SSH needs known_hosts (the host keys to trust): an unknown host key is never accepted")}
	}
	hosts, err := hostKeyDB(a.KnownHosts)
	if err != nil {
		return nil, &RequestError{Field: "secretRef", Err: fmt.Errorf("known_hosts: %w", err)}
	}
	s := &sshAuth{user: u.User.Username(), hosts: hosts, timeout: timeout, hostPort: u.Host}
	if s.user == "" {
		s.user = "git"
	}
	if u.Port() == "" {
		s.hostPort = net.JoinHostPort(u.Hostname(), "22")
	}
	switch {
	case len(a.SSHKey) > 0:
		signer, err := parseSSHKey(a.SSHKey, a.SSHPassphrase)
		if err != nil {
			return nil, &RequestError{Field: "secretRef", Err: err}
		}
		s.methods = []ssh.AuthMethod{ssh.PublicKeys(signer)}
	case a.SSHAgent:
		signers, err := agentSigners()
		if err != nil {
			return nil, err
		}
		s.methods = []ssh.AuthMethod{ssh.PublicKeysCallback(signers)}
	}
	return s, nil
}

func parseSSHKey(pemBytes, passphrase []byte) (ssh.Signer, error) {
	if len(passphrase) > 0 {
		signer, err := ssh.ParsePrivateKeyWithPassphrase(pemBytes, passphrase)
		if err != nil {
			return nil, fmt.Errorf("the SSH identity cannot be read with its password: %w", err)
		}
		return signer, nil
	}
	signer, err := ssh.ParsePrivateKey(pemBytes)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		return nil, errors.New("the SSH identity is encrypted: give its passphrase (key password)")
	}
	if err != nil {
		return nil, fmt.Errorf("the SSH identity is not a private key: %w", err)
	}
	return signer, nil
}

// agentSigners signs with the keys of the agent at $SSH_AUTH_SOCK.
func agentSigners() (func() ([]ssh.Signer, error), error) {
	sock := os.Getenv("SSH_AUTH_SOCK")
	if sock == "" {
		return nil, &RequestError{Field: "ssh", Err: errors.New("no SSH agent: SSH_AUTH_SOCK is not set (or give a key file)")}
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("the SSH agent at SSH_AUTH_SOCK: %w", err)
	}
	return agent.NewClient(conn).Signers, nil
}

// hostKeyDB reads known_hosts content (the library reads files only).
func hostKeyDB(content []byte) (*knownhosts.HostKeyDB, error) {
	f, err := os.CreateTemp("", "wavekit-known-hosts-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(content)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, err
	}
	return knownhosts.NewDB(f.Name())
}

// Name and String make sshAuth a go-git auth method; String holds no
// secret.
func (s *sshAuth) Name() string   { return "ssh-public-keys" }
func (s *sshAuth) String() string { return "user: " + s.user }

// ClientConfig is the SSH client's configuration: the host keys of
// known_hosts for the host (and their algorithms, so that the server shows
// one of them), and a timeout for the handshake.
func (s *sshAuth) ClientConfig() (*ssh.ClientConfig, error) {
	return &ssh.ClientConfig{
		User:              s.user,
		Auth:              s.methods,
		HostKeyCallback:   s.checkHostKey,
		HostKeyAlgorithms: s.hosts.HostKeyAlgorithms(s.hostPort),
		Timeout:           s.timeout,
	}, nil
}

func (s *sshAuth) checkHostKey(hostname string, remote net.Addr, key ssh.PublicKey) error {
	err := s.hosts.HostKeyCallback()(hostname, remote, key)
	if err == nil {
		return nil
	}
	refused := &HostKeyError{Host: hostname, Presented: ssh.FingerprintSHA256(key)}
	if knownhosts.IsHostKeyChanged(err) {
		for _, k := range s.hosts.HostKeys(s.hostPort) {
			refused.Known = append(refused.Known, ssh.FingerprintSHA256(k.PublicKey))
		}
	}
	s.mu.Lock()
	s.refusedKey = refused
	s.mu.Unlock()
	return refused
}

// refused returns the host key error of the last connection, if any.
func (r *remote) refused() *HostKeyError {
	if r.hostKey == nil {
		return nil
	}
	r.hostKey.mu.Lock()
	defer r.hostKey.mu.Unlock()
	return r.hostKey.refusedKey
}

// AuthFromSecret is the Auth of a credentials Secret's data, with the keys
// of Flux's GitRepository: username and password (HTTP basic; a token as
// the password), bearerToken, ca.crt (or caFile), tls.crt and tls.key, and
// for SSH identity (a private key), its password, and known_hosts.
func AuthFromSecret(data map[string][]byte) *Auth {
	auth := &Auth{Username: string(data["username"]), Password: string(data["password"]), BearerToken: string(data["bearerToken"]),
		CA: data["ca.crt"], CertPEM: data["tls.crt"], KeyPEM: data["tls.key"], KnownHosts: data["known_hosts"]}
	if auth.CA == nil {
		auth.CA = data["caFile"]
	}
	if identity := data["identity"]; len(identity) > 0 {
		auth.SSHKey, auth.SSHPassphrase, auth.Password = identity, data["password"], ""
	}
	return auth
}
