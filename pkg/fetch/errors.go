package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// ChartNotFoundError says a Helm repository's index has no chart of that
// name, or a registry no repository for it.
type ChartNotFoundError struct {
	Chart, Repository string
}

func (e *ChartNotFoundError) Error() string {
	return fmt.Sprintf("chart %s not found in %s", e.Chart, e.Repository)
}

// VersionNotFoundError says no version of a chart satisfies the constraint.
type VersionNotFoundError struct {
	Chart, Constraint, Repository string
	// Available lists the chart's versions, newest first.
	Available []string
}

// shownVersions is how many available versions an error lists.
const shownVersions = 5

func (e *VersionNotFoundError) Error() string {
	want := fmt.Sprintf("no version matches %q", e.Constraint)
	if e.Constraint == "" {
		want = "no stable version"
	}
	return fmt.Sprintf("chart %s: %s in %s; available: %s", e.Chart, want, e.Repository, listVersions(e.Available))
}

// listVersions lists the first few versions and counts the rest.
func listVersions(versions []string) string {
	switch {
	case len(versions) == 0:
		return "none"
	case len(versions) <= shownVersions:
		return strings.Join(versions, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(versions[:shownVersions], ", "), len(versions)-shownVersions)
}

// DigestMismatchError says what was downloaded is not what the index or the
// artifact promised. Nothing of it is kept.
type DigestMismatchError struct {
	URL, Want, Got string
}

func (e *DigestMismatchError) Error() string {
	return fmt.Sprintf("digest mismatch for %s: want %s, got %s", e.URL, e.Want, e.Got)
}

// AuthError says a repository or registry refused the credentials (HTTP
// 401 or 403), or asked for some and was given none.
type AuthError struct {
	URL        string
	StatusCode int
	// Anonymous is true when the request carried no credentials.
	Anonymous bool
}

func (e *AuthError) Error() string {
	msg := fmt.Sprintf("authentication failed for %s: HTTP %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Anonymous {
		msg += " (no credentials given)"
	}
	return msg
}

// HTTPError says a server answered with a status other than success,
// authentication failures aside (those are AuthErrors).
type HTTPError struct {
	URL        string
	StatusCode int
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("fetching %s: HTTP %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
}

// SizeLimitError says a download, or an artifact's extracted content, is
// larger than the Fetcher allows (see WithMaxSize).
type SizeLimitError struct {
	URL string
	// What exceeded the limit: "download" or "extracted content".
	What  string
	Limit int64
}

func (e *SizeLimitError) Error() string {
	return fmt.Sprintf("%s of %s exceeds the limit of %s", e.What, e.URL, formatBytes(e.Limit))
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// UnsafeArchiveError says an artifact holds an entry that extraction
// refuses: an absolute path, a "..", a symlink leading outside the
// artifact, a hard link or a device file.
type UnsafeArchiveError struct {
	URL, Entry, Reason string
}

func (e *UnsafeArchiveError) Error() string {
	return fmt.Sprintf("archive %s: refusing %q: %s", e.URL, e.Entry, e.Reason)
}

// IsTransient reports whether err may go away on its own, so that trying
// again later, unchanged, makes sense: network errors, timeouts, HTTP 5xx
// and 429. Everything else (not found, authentication, digest mismatch,
// unsafe archive, an untrusted certificate) needs a change by the user.
func IsTransient(err error) bool {
	var httpErr *HTTPError
	switch {
	case err == nil, errors.Is(err, context.Canceled), isCertificateError(err):
		return false
	case errors.As(err, &httpErr):
		return httpErr.StatusCode >= 500 || httpErr.StatusCode == http.StatusTooManyRequests
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return true
	}
	var opErr *net.OpError
	var dnsErr *net.DNSError
	var netErr net.Error
	return errors.As(err, &opErr) || errors.As(err, &dnsErr) || (errors.As(err, &netErr) && netErr.Timeout())
}

// isCertificateError reports whether err is a TLS certificate that could
// not be verified: retrying does not help, trusting its CA does.
func isCertificateError(err error) bool {
	var verifyErr *tls.CertificateVerificationError
	var authorityErr x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidErr x509.CertificateInvalidError
	return errors.As(err, &verifyErr) || errors.As(err, &authorityErr) ||
		errors.As(err, &hostErr) || errors.As(err, &invalidErr)
}
