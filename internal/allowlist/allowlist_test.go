package allowlist_test

import (
	"testing"

	"github.com/wavekit-dev/wavekit/internal/allowlist"
)

func TestCheck(t *testing.T) {
	many := []string{
		"https://charts.example.com/**",
		"oci://registry.example.com/team-*/**",
		"!oci://registry.example.com/team-x/**",
		"ssh://github.com/example/*",
	}
	tests := []struct {
		name     string
		patterns []string
		url      string
		allowed  bool
		pattern  string
	}{
		{"empty list allows", nil, "https://anything.internal/x", true, ""},
		{"allow under a host", many, "https://charts.example.com/stable", true, "https://charts.example.com/**"},
		{"host itself", many, "https://charts.example.com", true, "https://charts.example.com/**"},
		{"default port and case", many, "HTTPS://Charts.Example.com:443/stable/", true, "https://charts.example.com/**"},
		{"user information dropped", many, "https://user:pw@charts.example.com/x", true, "https://charts.example.com/**"},
		{"dot-dot cannot climb out", []string{"https://h.example.com/ok/**"}, "https://h.example.com/ok/../secret", false, ""},
		{"other host", many, "https://charts.example.com.evil.io/x", false, ""},
		{"internal endpoint", many, "http://169.254.169.254/latest", false, ""},
		{"one segment with *", many, "oci://registry.example.com/team-a/charts/web", true, "oci://registry.example.com/team-*/**"},
		{"deny wins over allow", many, "oci://registry.example.com/team-x/charts/web", false, "!oci://registry.example.com/team-x/**"},
		{"* does not cross /", many, "ssh://github.com/example/repo/sub", false, ""},
		{"scp-like git address", many, "git@github.com:example/repo.git", true, "ssh://github.com/example/*"},
		{"deny order does not matter", []string{"!https://a.example.com/private/**", "https://a.example.com/**"}, "https://a.example.com/private/x", false, "!https://a.example.com/private/**"},
		{"only deny rules allow nothing", []string{"!https://a.example.com/**"}, "https://b.example.com/x", false, ""},
		{"not a URL", many, "::", false, ""},
		{"plain http is not https", many, "http://charts.example.com/stable", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := allowlist.Parse(tt.patterns)
			if err != nil {
				t.Fatal(err)
			}
			d := l.Check(tt.url)
			if d.Allowed != tt.allowed || d.Pattern != tt.pattern {
				t.Errorf("Check(%q) = allowed %v by %q (url %s), want %v by %q", tt.url, d.Allowed, d.Pattern, d.URL, tt.allowed, tt.pattern)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, p := range []string{"!*", "!**", "", "!", "https://x/[a"} {
		if _, err := allowlist.Parse([]string{p}); err == nil {
			t.Errorf("Parse(%q) = nil error, want one", p)
		}
	}
}

func TestParseList(t *testing.T) {
	l, err := allowlist.ParseList(" https://a.example.com/** ,\n!https://a.example.com/x/**\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.String(); got != "https://a.example.com/**, !https://a.example.com/x/**" {
		t.Errorf("String() = %q", got)
	}
	if l.Check("https://a.example.com/x/y").Allowed {
		t.Error("the deny pattern of the list was lost")
	}
}

func TestNormalize(t *testing.T) {
	tests := map[string]string{
		"https://Charts.Example.com:443/a/b/": "https://charts.example.com/a/b",
		"http://h:80/x?token=1#f":             "http://h/x",
		"https://h:8443/x.git":                "https://h:8443/x",
		"oci://ghcr.io/org/charts":            "oci://ghcr.io/org/charts",
		"git@github.com:org/repo.git":         "ssh://github.com/org/repo",
		"ssh://git@github.com/org/repo":       "ssh://github.com/org/repo",
		"https://h/a/%2e%2e/b":                "https://h/b",
	}
	for in, want := range tests {
		got, err := allowlist.Normalize(in)
		if err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
