package allowlist

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/gobwas/glob"

	"github.com/wavekit-dev/wavekit/pkg/fetch/git/giturl"
)

// rule is one parsed pattern.
type rule struct {
	pattern string // as given
	deny    bool
	globs   []glob.Glob // any one matches
}

// List is an ordered list of allow and deny patterns.
type List struct {
	rules []rule
}

// Decision says whether a URL is allowed, and by or against which pattern.
type Decision struct {
	Allowed bool
	// Pattern is the deny pattern that refused the URL, or the allow
	// pattern that admitted it; empty when the list is empty, or when no
	// allow pattern matched.
	Pattern string
	// URL is the normalised URL that was matched.
	URL string
}

// Parse compiles patterns; the error names every pattern that is not a
// valid glob, and "!*", which would deny everything (give no allow
// pattern instead).
func Parse(patterns []string) (*List, error) {
	l := &List{}
	var errs []error
	for _, p := range patterns {
		r, err := parseRule(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		l.rules = append(l.rules, r)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return l, nil
}

// ParseList splits a comma- or newline-separated list of patterns (the
// form of a Namespace annotation) and parses it.
func ParseList(value string) (*List, error) {
	fields := strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == '\n' })
	patterns := make([]string, 0, len(fields))
	for _, f := range fields {
		if f = strings.TrimSpace(f); f != "" {
			patterns = append(patterns, f)
		}
	}
	return Parse(patterns)
}

func parseRule(pattern string) (rule, error) {
	p := strings.TrimSpace(pattern)
	r := rule{pattern: p}
	if rest, ok := strings.CutPrefix(p, "!"); ok {
		r.deny, p = true, rest
	}
	if p == "" || (r.deny && (p == "*" || p == "**")) {
		return rule{}, fmt.Errorf("source pattern %q: want a URL glob such as https://charts.example.com/** (a deny-everything pattern is not needed: an allow-list allows only what it names)", pattern)
	}
	p = normalizePattern(p)
	forms := []string{p}
	if prefix, ok := strings.CutSuffix(p, "/**"); ok {
		forms = append(forms, prefix) // host/** also matches host itself
	}
	for _, form := range forms {
		g, err := glob.Compile(form, '/')
		if err != nil {
			return rule{}, fmt.Errorf("source pattern %q: %w", pattern, err)
		}
		r.globs = append(r.globs, g)
	}
	return r, nil
}

// Empty tells whether the list has no pattern, and so allows everything.
func (l *List) Empty() bool { return l == nil || len(l.rules) == 0 }

// String lists the patterns, comma-separated.
func (l *List) String() string {
	if l.Empty() {
		return ""
	}
	out := make([]string, len(l.rules))
	for i, r := range l.rules {
		out[i] = r.pattern
	}
	return strings.Join(out, ", ")
}

// Check decides about rawURL. A URL that cannot be parsed is not allowed
// by a non-empty list.
func (l *List) Check(rawURL string) Decision {
	if l.Empty() {
		return Decision{Allowed: true, URL: rawURL}
	}
	u, err := Normalize(rawURL)
	if err != nil {
		return Decision{URL: rawURL}
	}
	d := Decision{URL: u}
	for _, r := range l.rules {
		if !r.matches(u) {
			continue
		}
		if r.deny {
			return Decision{URL: u, Pattern: r.pattern}
		}
		if !d.Allowed {
			d.Allowed, d.Pattern = true, r.pattern
		}
	}
	return d
}

func (r rule) matches(u string) bool {
	for _, g := range r.globs {
		if g.Match(u) {
			return true
		}
	}
	return false
}

// Normalize returns the form of a URL that patterns match: lower case,
// without user information, query, fragment, default port, trailing "/" or
// ".git", with the path cleaned ("/a/../b" is "/b"); an scp-like Git
// address (git@host:org/repo) becomes ssh://host/org/repo.
func Normalize(rawURL string) (string, error) {
	s := giturl.Normalize(strings.ToLower(strings.TrimSpace(rawURL)))
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("source URL %q: %w", rawURL, err)
	}
	if u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("source URL %q: want scheme://host/path", rawURL)
	}
	host := u.Host
	if port := u.Port(); (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		host = u.Hostname()
	}
	p := ""
	if u.Path != "" {
		p = strings.TrimSuffix(path.Clean("/"+u.Path), "/")
		p = strings.TrimSuffix(p, ".git")
	}
	return u.Scheme + "://" + host + p, nil
}

// normalizePattern normalises the fixed part of a pattern as Normalize
// does a URL, leaving its wildcards alone.
func normalizePattern(p string) string {
	p = strings.ToLower(p)
	p = strings.TrimSuffix(p, "/")
	return strings.TrimSuffix(p, ".git")
}
