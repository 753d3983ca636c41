package dependency_test

import (
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/fetch/dependency"
)

// TestForURLScheme: a repository whose URL is a scheme alone stands for
// every URL of that scheme, and a longer URL still wins.
func TestForURLScheme(t *testing.T) {
	repos := dependency.Repositories{
		{URL: "oci://", PlainHTTP: true},
		{Name: "private", URL: "oci://registry.example.com/charts"},
		{Name: "web", URL: "https://charts.example.com"},
	}
	for url, want := range map[string]string{
		"oci://localhost:5000/charts":        "oci://",
		"oci://registry.example.com/charts":  "oci://registry.example.com/charts",
		"oci://registry.example.com/charts2": "oci://",
		"https://charts.example.com/sub":     "https://charts.example.com",
		"https://other.example.com":          "",
		"http://localhost:5000":              "",
	} {
		got, found := repos.ForURL(url)
		if want == "" {
			if found {
				t.Errorf("ForURL(%s) = %s, want none", url, got.URL)
			}
			continue
		}
		if !found || got.URL != want {
			t.Errorf("ForURL(%s) = %s (found %v), want %s", url, got.URL, found, want)
		}
	}
}
