package manifests_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

func TestParsePointer(t *testing.T) {
	for _, tc := range []struct {
		text   string
		tokens []string
		err    string
	}{
		{text: "/spec/replicas", tokens: []string{"spec", "replicas"}},
		{text: "/metadata/annotations/sidecar.istio.io~1status", tokens: []string{"metadata", "annotations", "sidecar.istio.io/status"}},
		{text: "/data/a~0b", tokens: []string{"data", "a~b"}},
		{text: "/data/~01", tokens: []string{"data", "~1"}},
		{text: "/spec/containers/0/image", tokens: []string{"spec", "containers", "0", "image"}},
		{text: "spec/replicas", err: `JSON pointer "spec/replicas" does not start with /`},
		{text: "", err: `JSON pointer "" does not start with /`},
		{text: "/data/a~2", err: `"a~2" has a ~ that is neither ~0 nor ~1`},
		{text: "/data/a~", err: `"a~" has a ~ that is neither ~0 nor ~1`},
	} {
		p, err := manifests.ParsePointer(tc.text)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one containing %q", tc.text, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.err == "" && !slices.Equal([]string(p), tc.tokens):
			t.Errorf("%q: tokens %q, want %q", tc.text, p, tc.tokens)
		case tc.err == "" && p.String() != tc.text && tc.text != "/data/~01":
			t.Errorf("%q: String() = %q", tc.text, p.String())
		}
	}
}

func TestParseIgnoreFields(t *testing.T) {
	key := "example.com/ignore-fields"
	got, err := manifests.ParseIgnoreFields("example.com", "Deployment ns/web", map[string]string{key: "/spec/replicas, /metadata/annotations/x"})
	if err != nil || len(got) != 2 || got[0].String() != "/spec/replicas" || got[1].String() != "/metadata/annotations/x" {
		t.Fatalf("got %v, %v", got, err)
	}
	_, err = manifests.ParseIgnoreFields("example.com", "Deployment ns/web", map[string]string{key: "/spec/replicas,spec/paused"})
	want := `Deployment ns/web: annotation example.com/ignore-fields has invalid value "/spec/replicas,spec/paused"`
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), `"spec/paused" does not start with /`) {
		t.Fatalf("error %v, want one starting %q and naming the bad pointer", err, want)
	}
	if got, err := manifests.ParseIgnoreFields("example.com", "x", nil); got != nil || err != nil {
		t.Fatalf("no annotation: %v, %v", got, err)
	}
}

func TestParseDriftMode(t *testing.T) {
	for text, want := range map[string]manifests.DriftMode{"": manifests.DriftCorrect, "warn": manifests.DriftWarn, "Disabled": manifests.DriftDisabled} {
		if got, err := manifests.ParseDriftMode(text); err != nil || got != want {
			t.Errorf("%q: %q, %v", text, got, err)
		}
	}
	if _, err := manifests.ParseDriftMode("ignore"); err == nil || err.Error() != `drift mode "ignore" is not one of Correct, Warn, Disabled` {
		t.Errorf("error %v", err)
	}
}
