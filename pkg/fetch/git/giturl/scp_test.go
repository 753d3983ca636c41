package giturl

import "testing"

func TestParseSCP(t *testing.T) {
	for raw, want := range map[string]string{
		"git@github.com:org/repo.git":   "ssh://git@github.com/org/repo.git",
		"github.com:org/repo":           "ssh://github.com/org/repo",
		"deploy@git.example.com:/srv/r": "ssh://deploy@git.example.com/srv/r",
		"git@[::1]:repo.git":            "ssh://git@[::1]/repo.git",
	} {
		s, ok := ParseSCP(raw)
		if !ok || s.URL() != want {
			t.Errorf("ParseSCP(%q) = %+v, %t: URL %q, want %q", raw, s, ok, s.URL(), want)
		}
		if got := Normalize(raw); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", raw, got, want)
		}
	}
	for _, raw := range []string{
		"https://github.com/org/repo", "ssh://git@host/r", "./lib.git", "../lib.git", "/srv/repo.git",
		"charts/app", "bitnami/nginx", "dir/with:colon", "host:", ":path", "a@b@c:d", "",
	} {
		if s, ok := ParseSCP(raw); ok {
			t.Errorf("ParseSCP(%q) = %+v, want no scp-like address", raw, s)
		}
		if got := Normalize(raw); got != raw {
			t.Errorf("Normalize(%q) = %q, want it unchanged", raw, got)
		}
	}
}

func TestRedacted(t *testing.T) {
	for raw, want := range map[string]string{
		"https://ghp_token@github.com/org/r.git": "https://github.com/org/r.git",
		"https://user:secret@example.com/r":      "https://example.com/r",
		"ssh://git@host:2222/r.git":              "ssh://host:2222/r.git",
		"https://example.com/r":                  "https://example.com/r",
		"https://tok en@example.com/%zz":         "…@example.com/%zz",
	} {
		if got := Redacted(raw); got != want {
			t.Errorf("Redacted(%q) = %q, want %q", raw, got, want)
		}
	}
}
