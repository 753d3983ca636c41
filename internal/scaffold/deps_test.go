package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// TestSnapshotIsCurrent fails when wavekit's requirements (or its tools
// module's) changed without `go generate ./internal/scaffold`, so scaffolded
// projects always get the versions wavekit is built with: the snapshot must
// require the same versions and hold every go.sum line of the checkout.
func TestSnapshotIsCurrent(t *testing.T) {
	for name, rel := range depSources {
		want, err := os.ReadFile(filepath.Join(testcluster.ModuleRoot(), rel))
		if err != nil {
			t.Fatal(err)
		}
		got, err := snapshot.ReadFile("deps/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if missing := missingLines(string(got), string(want), strings.HasSuffix(name, ".mod.txt")); len(missing) > 0 {
			t.Errorf("internal/scaffold/deps/%s is stale (run go generate ./internal/scaffold); it lacks %q", name, missing)
		}
	}
}

// missingLines returns the lines of want (its requirements without
// comments, for a go.mod) that got does not have.
func missingLines(got, want string, gomod bool) []string {
	lines := func(s string) []string {
		if gomod {
			out := requireLines(s)
			for i, l := range out {
				out[i], _, _ = strings.Cut(l, " //")
			}
			return out
		}
		return strings.Split(strings.TrimSpace(s), "\n")
	}
	have := map[string]bool{}
	for _, l := range lines(got) {
		have[l] = true
	}
	var missing []string
	for _, l := range lines(want) {
		if !have[l] {
			missing = append(missing, l)
		}
	}
	return missing
}

func TestRequireLines(t *testing.T) {
	got := requireLines("module m\n\nrequire a v1\n\nrequire (\n\tb v2 // indirect\n\t// comment\n)\n")
	if len(got) != 2 || got[0] != "a v1" || got[1] != "b v2 // indirect" {
		t.Fatalf("requireLines = %q", got)
	}
}

func TestPlural(t *testing.T) {
	for kind, want := range map[string]string{"redis": "redises", "policy": "policies", "gateway": "gateways", "box": "boxes", "database": "databases"} {
		if got := plural(kind); got != want {
			t.Errorf("plural(%q) = %q, want %q", kind, got, want)
		}
	}
}
