package krew_test

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/krew"
)

// TestPackage packages two fake binaries and checks the manifest as krew
// reads it: its kind, a v-prefixed version, and for each platform a
// selector, a URI under the base URL, the sha256 of that very archive, and
// an archive that holds the binary as kubectl-wavekit, executable.
func TestPackage(t *testing.T) {
	dist := t.TempDir()
	platforms := []krew.Platform{{OS: "linux", Arch: "amd64"}, {OS: "darwin", Arch: "arm64"}}
	for _, p := range platforms {
		if err := os.WriteFile(filepath.Join(dist, "wavekit-v1.2.3-"+p.OS+"-"+p.Arch), []byte("binary for "+p.OS), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path, err := krew.Package(krew.Options{Dist: dist, Version: "v1.2.3", BaseURL: "https://example.com/releases/v1.2.3/",
		Platforms: platforms, ModTime: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		APIVersion string `json:"apiVersion"`
		Kind       string
		Metadata   struct{ Name string }
		Spec       struct {
			Version, ShortDescription, Description, Homepage string
			Platforms                                        []struct {
				Selector         struct{ MatchLabels map[string]string }
				URI, Sha256, Bin string
			}
		}
	}
	if err := yaml.UnmarshalStrict(data, &m); err != nil {
		t.Fatalf("manifest: %v\n%s", err, data)
	}
	if m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Kind != "Plugin" || m.Metadata.Name != "wavekit" ||
		m.Spec.Version != "v1.2.3" || m.Spec.ShortDescription == "" || len(m.Spec.Platforms) != 2 {
		t.Fatalf("manifest:\n%s", data)
	}
	for i, p := range m.Spec.Platforms {
		want := platforms[i]
		name := "kubectl-wavekit-v1.2.3-" + want.OS + "-" + want.Arch + ".tar.gz"
		if p.Selector.MatchLabels["os"] != want.OS || p.Selector.MatchLabels["arch"] != want.Arch || p.Bin != "kubectl-wavekit" ||
			p.URI != "https://example.com/releases/v1.2.3/"+name {
			t.Errorf("platform %d: %+v", i, p)
		}
		archive, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(archive); hex.EncodeToString(sum[:]) != p.Sha256 {
			t.Errorf("%s: sha256 %s in the manifest, %x in the file", name, p.Sha256, sum)
		}
		checkArchive(t, filepath.Join(dist, name), "binary for "+want.OS)
	}

	if _, err := krew.Package(krew.Options{Dist: dist, Version: "1.2.3"}); err == nil {
		t.Error("a version without v is accepted")
	}
}

func checkArchive(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	header, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	if header.Name != "kubectl-wavekit" || header.Mode != 0o755 || string(got) != content {
		t.Errorf("%s holds %s (mode %o): %q", path, header.Name, header.Mode, got)
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("%s holds more than the binary", path)
	}
}
