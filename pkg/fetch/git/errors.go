package git

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// RequestError says a request is malformed: a field only a change fixes,
// found before any connection.
type RequestError struct {
	Field string
	Err   error
}

func (e *RequestError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *RequestError) Unwrap() error { return e.Err }

// RefNotFoundError says the remote has no ref the request asks for; it
// lists some of what it has.
type RefNotFoundError struct {
	URL string
	Ref Ref
	// Branches and Tags the remote has, sorted (tags newest semver first).
	Branches, Tags []string
}

// shownRefs is how many branches and tags an error names.
const shownRefs = 5

func (e *RefNotFoundError) Error() string {
	return fmt.Sprintf("%s: no %s (branches: %s; tags: %s)", e.URL, e.Ref, listSome(e.Branches), listSome(e.Tags))
}

func listSome(names []string) string {
	switch {
	case len(names) == 0:
		return "none"
	case len(names) <= shownRefs:
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shownRefs], ", "), len(names)-shownRefs)
}

// HostKeyError says an SSH server's host key is not one known_hosts
// accepts for it: the connection was closed before anything was sent.
type HostKeyError struct {
	Host string
	// Presented is the SHA256 fingerprint of the key the server showed.
	Presented string
	// Known are the fingerprints known_hosts holds for the host; none
	// when the host is unknown.
	Known []string
}

func (e *HostKeyError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("host key of %s (%s) is not trusted: known_hosts has no key for this host", e.Host, e.Presented)
	}
	return fmt.Sprintf("host key mismatch for %s: the server shows %s, known_hosts trusts %s", e.Host, e.Presented, strings.Join(e.Known, ", "))
}

// AuthError says the remote refused the credentials, or wanted some.
type AuthError struct {
	URL string
	// Anonymous is true when the request carried no credentials.
	Anonymous bool
	Err       error
}

func (e *AuthError) Error() string {
	msg := fmt.Sprintf("%s: authentication failed: %v", e.URL, e.Err)
	if e.Anonymous {
		msg += " (no credentials given)"
	}
	return msg
}

func (e *AuthError) Unwrap() error { return e.Err }

// NotFoundError says there is no repository at the URL (some hosts say so
// of a private repository without credentials, too).
type NotFoundError struct{ URL string }

func (e *NotFoundError) Error() string { return e.URL + ": repository not found" }

// VerificationError says what the request asked to verify is unsigned, or
// signed by no trusted key. Nothing of the tree is returned.
type VerificationError struct {
	URL string
	// Object is what failed: "commit <hex>" or "tag <name> (<hex>)".
	Object string
	Err    error
}

func (e *VerificationError) Error() string {
	return fmt.Sprintf("verifying %s of %s: %v", e.Object, e.URL, e.Err)
}

func (e *VerificationError) Unwrap() error { return e.Err }

// UnsafeTreeError says a tree holds what is not written: a symbolic link
// that leads outside it.
type UnsafeTreeError struct {
	URL, Commit, Path, Reason string
}

func (e *UnsafeTreeError) Error() string {
	return fmt.Sprintf("%s at %s: refusing %s: %s", e.URL, e.Commit, e.Path, e.Reason)
}

// SubmoduleError says a submodule the tree records cannot be fetched.
type SubmoduleError struct {
	Path string
	Err  error
}

func (e *SubmoduleError) Error() string { return fmt.Sprintf("submodule %s: %v", e.Path, e.Err) }

func (e *SubmoduleError) Unwrap() error { return e.Err }

// staleLookError says the reference a look resolved moved before the
// fetch: the remote no longer serves the commit the look saw by that name.
// Looking again helps.
type staleLookError struct {
	Ref  string
	Seen plumbing.Hash
}

func (e *staleLookError) Error() string {
	return fmt.Sprintf("%s moved since the look that saw it at %s: looking again", e.Ref, e.Seen)
}

// IsTransient reports whether err may go away by itself, so that trying
// again unchanged makes sense: the network, a timeout, an HTTP 5xx or 429.
// A missing ref, a refused key or signature, a size over the limit need a
// change.
func IsTransient(err error) bool {
	var httpErr *githttp.Err
	if errors.As(err, &httpErr) && httpErr.Response != nil {
		code := httpErr.Response.StatusCode
		return code >= 500 || code == http.StatusTooManyRequests
	}
	var (
		hostKey *HostKeyError
		auth    *AuthError
		verify  *VerificationError
		stale   *staleLookError
	)
	switch {
	case errors.As(err, &hostKey) || errors.As(err, &auth) || errors.As(err, &verify):
		return false
	case errors.As(err, &stale):
		return true
	}
	return fetch.IsTransient(err)
}

// classify turns go-git's sentinel errors into this package's types.
func classify(err error, req *Request) error {
	var httpErr *githttp.Err
	anonymous := req.Auth == nil || (req.Auth.Username == "" && req.Auth.BearerToken == "" && len(req.Auth.SSHKey) == 0 && !req.Auth.SSHAgent)
	shown := redactURL(req.URL)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return &AuthError{URL: shown, Anonymous: anonymous, Err: err}
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return &NotFoundError{URL: shown}
	case errors.As(err, &httpErr) && httpErr.Response != nil:
		// go-git's message quotes the server's answer, whatever its size.
		return &fetch.HTTPError{URL: shown, StatusCode: httpErr.Response.StatusCode}
	case strings.Contains(err.Error(), "unable to authenticate"):
		return &AuthError{URL: shown, Anonymous: anonymous, Err: err}
	}
	return err
}
