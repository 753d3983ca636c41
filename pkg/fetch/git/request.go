package git

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/wavekit-dev/wavekit/pkg/fetch/git/giturl"
)

// Ref says which commit of a repository to take. The fields take
// precedence in this order, as in Flux's GitRepository: Commit over Name
// over SemVer over Tag over Branch; with none, the remote's HEAD (its
// default branch).
type Ref struct {
	// Branch follows the tip of a branch: main.
	Branch string
	// Tag takes the commit a tag points at: v1.2.3.
	Tag string
	// SemVer takes the highest tag that satisfies a semver constraint
	// (Masterminds/semver): ">=1.2.0 <2.0.0", "~1.4"; a leading v of a
	// tag is ignored.
	SemVer string
	// Name takes any reference by its full name: refs/pull/42/head.
	Name string
	// Commit takes one commit by its hex SHA-1; with Branch, the branch is
	// fetched and must hold it.
	Commit string
}

// String says what the ref asks for, for messages.
func (r Ref) String() string {
	switch {
	case r.Commit != "" && r.Branch != "":
		return fmt.Sprintf("commit %s of branch %s", r.Commit, r.Branch)
	case r.Commit != "":
		return "commit " + r.Commit
	case r.Name != "":
		return "ref " + r.Name
	case r.SemVer != "":
		return fmt.Sprintf("the highest tag matching %q", r.SemVer)
	case r.Tag != "":
		return "tag " + r.Tag
	case r.Branch != "":
		return "branch " + r.Branch
	}
	return "HEAD (the default branch)"
}

// Auth holds what a repository is reached with. Nothing of it is logged,
// traced or put in an error.
type Auth struct {
	// Username and Password: HTTP basic authentication (a token as the
	// password for GitHub, GitLab and most hosts).
	Username, Password string
	// BearerToken: HTTP "Authorization: Bearer".
	BearerToken string
	// CA is a PEM bundle trusted for HTTPS besides the system's roots.
	CA []byte
	// CertPEM and KeyPEM are a client certificate for mutual TLS.
	CertPEM, KeyPEM []byte
	// SSHKey is a private key (PEM or OpenSSH format) for SSH, with its
	// passphrase if it has one.
	SSHKey, SSHPassphrase []byte
	// SSHAgent signs with the keys of the agent at $SSH_AUTH_SOCK (the
	// CLI's default), when SSHKey is empty.
	SSHAgent bool
	// KnownHosts are the host keys SSH accepts, in known_hosts format. An
	// SSH connection without one is refused: no host key is ever accepted
	// blindly.
	KnownHosts []byte
}

// Proxy is an HTTP(S) or SOCKS5 proxy every connection goes through.
type Proxy struct {
	URL, Username, Password string
}

// Checkout says what of a commit's tree is written to disk.
type Checkout struct {
	// SparsePaths are the directories to write (every other path is left
	// out); empty writes the whole tree. With them, a tree is known by the
	// content of these directories (Tree.Identity), so a commit that
	// touches only other folders gives the same tree.
	SparsePaths []string
	// Ignore holds .gitignore patterns of paths not to write.
	Ignore string
	// Submodules fetches the submodules the tree records, at the commits
	// it records, into their paths.
	Submodules bool
}

// VerifyMode says which signatures are checked.
type VerifyMode string

// Verification modes, as Flux's GitRepository names them.
const (
	// VerifyHEAD checks the signature of the commit taken.
	VerifyHEAD VerifyMode = "HEAD"
	// VerifyTag checks the signature of the annotated tag taken (ref.tag,
	// ref.semver, or a ref.name under refs/tags/).
	VerifyTag VerifyMode = "Tag"
	// VerifyTagAndHEAD checks both.
	VerifyTagAndHEAD VerifyMode = "TagAndHEAD"
)

// Verification asks that what is taken be signed by one of Keys.
type Verification struct {
	Mode VerifyMode
	Keys *KeyRing
}

// Request asks for the tree of a commit of a repository.
type Request struct {
	// URL of the repository: https://, http:// or ssh://.
	URL string
	Ref Ref
	// Auth is what the repository is reached with; nil: anonymously.
	Auth *Auth
	// Credentials, when set, gives Auth and Proxy: it is called once per
	// Get, and only when the Get connects (its look is not shared and its
	// tree not in the cache), so that credentials are read only when they
	// are used.
	Credentials func(context.Context) (*Auth, *Proxy, error)
	// Identity names who reaches the repository with Auth: requests for
	// one URL with one Identity share their lookups of its refs. Two
	// requests whose credentials may differ must have different
	// identities; "" is the anonymous one.
	Identity string
	// Proxy, if set, is what every connection goes through.
	Proxy *Proxy
	// MaxAge is how old a look at the remote's refs, made for another
	// request of the same URL and Identity, may be to serve this one.
	MaxAge time.Duration
	// Timeout bounds each look at the remote and each fetch (default
	// DefaultTimeout).
	Timeout  time.Duration
	Checkout Checkout
	// Verify, if set, checks signatures before the tree is returned.
	Verify *Verification
	// Consumer names who asks (a Component): when a look at the remote
	// finds the refs moved, the Source's OnChange is told the other
	// consumers of the repository.
	Consumer string
	// Allow, when set, is asked before any connection to another URL than
	// URL (a submodule's); its error refuses it.
	Allow func(url string) error
}

// DefaultTimeout bounds a look at a remote or a fetch, as Flux's default.
const DefaultTimeout = 60 * time.Second

// Tree is a commit's tree on disk.
type Tree struct {
	// Dir holds the tree. It lives in the cache: it may be evicted once
	// other trees are stored.
	Dir string
	// URL of the repository.
	URL string
	// Commit is the hex SHA-1 of the commit.
	Commit string
	// RefName is the reference resolved, refs/heads/main; empty for a
	// commit asked by its SHA-1 alone.
	RefName string
	// Revision names the commit as Flux does: main@sha1:<hex>,
	// v1.2.3@sha1:<hex>, refs/pull/1/head@sha1:<hex>, sha1:<hex>.
	Revision string
	// Digest is "sha256:<hex>" of the files written: paths, modes, content.
	Digest string
	// Identity is what a render of the tree depends on: the commit, or,
	// with sparse paths, the digest of those paths' content.
	Identity string
	// Verified says what signature verified it, when the request asked.
	Verified string
}

// validate checks what needs no network: the URL's scheme and form, and
// the ref's.
func (r *Request) validate() error {
	if _, err := parseURL(r.URL); err != nil {
		return err
	}
	if r.Ref.Commit != "" && !isSHA1(r.Ref.Commit) {
		return &RequestError{Field: "ref.commit", Err: fmt.Errorf("%q is not a commit's 40 hex digits", r.Ref.Commit)}
	}
	if r.Ref.Name != "" && !strings.HasPrefix(r.Ref.Name, "refs/") {
		return &RequestError{Field: "ref.name", Err: fmt.Errorf("%q is not a full reference name (refs/…)", r.Ref.Name)}
	}
	if r.Ref.SemVer != "" && r.Ref.Commit == "" && r.Ref.Name == "" {
		if _, err := semver.NewConstraint(r.Ref.SemVer); err != nil {
			return &RequestError{Field: "ref.semver", Err: fmt.Errorf("%q is not a semver range (\">=1.2.0 <2\", \"~1.4\", \"^1\"): %w", r.Ref.SemVer, err)}
		}
	}
	for _, p := range r.Checkout.SparsePaths {
		if _, err := cleanRelative(p); err != nil {
			return &RequestError{Field: "sparsePaths", Err: err}
		}
	}
	if r.Verify != nil && r.Verify.Mode != VerifyHEAD {
		if r.Ref.Commit != "" || (r.Ref.Name == "" && r.Ref.SemVer == "" && r.Ref.Tag == "") ||
			(r.Ref.Name != "" && !strings.HasPrefix(r.Ref.Name, "refs/tags/")) {
			return &RequestError{Field: "verify.mode", Err: fmt.Errorf("%s verifies a tag: take one with ref.tag, ref.semver or a ref.name under refs/tags/", r.Verify.Mode)}
		}
	}
	return nil
}

func (r *Request) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return DefaultTimeout
}

// parseURL accepts https://, http:// and ssh:// URLs of a host, without a
// password in them: credentials belong in Auth, where they are never
// printed. Local paths and file:// would read the process's own disk.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &RequestError{Field: "url", Err: fmt.Errorf("%q is not a URL: %w", redactURL(raw), err)}
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "ssh":
		return nil, &RequestError{Field: "url", Err: fmt.Errorf("%s: want an https://, http:// or ssh:// URL (scp-like user@host:path is written ssh://user@host/path)", redactURL(raw))}
	case u.Host == "":
		return nil, &RequestError{Field: "url", Err: fmt.Errorf("%s has no host", redactURL(raw))}
	case u.User != nil && u.Scheme != "ssh":
		return nil, &RequestError{Field: "url", Err: fmt.Errorf("%s holds credentials: put them in the Secret instead", redactURL(raw))}
	case u.User != nil:
		if _, has := u.User.Password(); has {
			return nil, &RequestError{Field: "url", Err: fmt.Errorf("%s holds a password: SSH takes a key from the Secret instead", redactURL(raw))}
		}
	case u.RawQuery != "" || u.Fragment != "":
		return nil, &RequestError{Field: "url", Err: fmt.Errorf("%s: a repository's URL has no query or fragment", redactURL(raw))}
	}
	return u, nil
}

// redactURL drops the user information of a URL for a message.
func redactURL(raw string) string { return giturl.Redacted(raw) }

// hostOf is a URL's host and port, which concurrency is limited by.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Host
}

// cleanRelative cleans a path inside a repository: relative, slash
// separated, never leaving it.
func cleanRelative(p string) (string, error) {
	clean := path.Clean(strings.TrimPrefix(p, "/"))
	if p == "" || clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return "", fmt.Errorf("%q: want a relative path inside the repository, such as deploy/app", p)
	}
	return clean, nil
}

func isSHA1(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
