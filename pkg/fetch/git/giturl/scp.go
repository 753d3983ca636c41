package giturl

import (
	"net/url"
	"regexp"
	"strings"
)

// SCP is an scp-like address: [user@]host:path.
type SCP struct {
	// User is empty when the address names none.
	User string
	Host string
	// Path is as written: relative to the user's home (org/repo.git), or
	// absolute (/srv/repo.git).
	Path string
}

// scpLike is git's test: a colon before any slash, after a host that is
// not empty; a host in brackets may hold colons ([::1]:repo).
var scpLike = regexp.MustCompile(`^(?:([^@/:\s]+)@)?(\[[^\]/\s]+\]|[^@/:\s\[\]]+):([^\s]+)$`)

// ParseSCP reads raw as an scp-like address. A URL (scheme://) and a
// path are not.
func ParseSCP(raw string) (SCP, bool) {
	if strings.Contains(raw, "://") {
		return SCP{}, false
	}
	m := scpLike.FindStringSubmatch(raw)
	if m == nil {
		return SCP{}, false
	}
	return SCP{User: m[1], Host: m[2], Path: m[3]}, true
}

// URL is the address as an ssh:// URL: ssh://user@host/path.
func (s SCP) URL() string {
	user := ""
	if s.User != "" {
		user = s.User + "@"
	}
	return "ssh://" + user + s.Host + "/" + strings.TrimPrefix(s.Path, "/")
}

// Normalize returns raw as a URL: an scp-like address as its ssh:// URL,
// anything else as it is.
func Normalize(raw string) string {
	if s, ok := ParseSCP(raw); ok {
		return s.URL()
	}
	return raw
}

// Redacted is raw without its user information, for a message: a token
// may stand where a user's name does (https://<token>@host/…). What does
// not parse as a URL loses what comes before its last "@".
func Redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			return "…" + raw[i:]
		}
		return raw
	}
	u.User = nil
	return u.String()
}
