package testcluster

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin"
)

// FluxSourceController is the release of Flux's source-controller whose
// CustomResourceDefinitions the tests install.
const FluxSourceController = "v1.10.1"

// FluxSourceCRDs returns a directory with the CustomResourceDefinitions of
// Flux's source-controller (GitRepository, OCIRepository, Bucket, HelmChart,
// HelmRepository, ExternalArtifact), as that release ships them: taken from
// its module on the Go module proxy on first use and kept in the cache
// directory of hack/control-plane.sh. Pass it in Options.ExtraCRDDirs.
func FluxSourceCRDs() (string, error) {
	dir := filepath.Join(k8sbin.CacheRoot(), "flux", "source-controller-"+FluxSourceController)
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return dir, nil
	}
	archive, err := downloadModule("github.com/fluxcd/source-controller@" + FluxSourceController)
	if err != nil {
		return "", err
	}
	if err := extractCRDs(archive, dir); err != nil {
		return "", fmt.Errorf("the CRDs of Flux source-controller %s: %w", FluxSourceController, err)
	}
	return dir, nil
}

// downloadModule fetches a module's zip with the go command (so that
// GOPROXY, GOFLAGS and the checksum database apply) and returns its path.
// The module need not build with this Go: only its files are read.
func downloadModule(module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = os.TempDir() // outside any module: no go.mod is changed
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, _ := cmd.Output() // it exits non-zero when the module wants a newer Go
	var info struct{ Zip, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download %s: %w: %s", module, err, out)
	}
	if info.Zip == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, info.Error)
	}
	if _, err := os.Stat(info.Zip); err != nil {
		return "", fmt.Errorf("go mod download %s: %s: %w", module, info.Error, err)
	}
	return info.Zip, nil
}

// extractCRDs copies config/crd/bases/*.yaml of a module zip into dir.
func extractCRDs(archive, dir string) error {
	r, err := zip.OpenReader(archive)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".crds-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	found := 0
	for _, f := range r.File {
		_, name, _ := strings.Cut(f.Name, "@"+FluxSourceController+"/")
		if path.Dir(name) != "config/crd/bases" || path.Ext(name) != ".yaml" {
			continue
		}
		if err := copyZipFile(f, filepath.Join(tmp, path.Base(name))); err != nil {
			return err
		}
		found++
	}
	if found == 0 {
		return fmt.Errorf("no config/crd/bases/*.yaml in %s", archive)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			return nil // another test process got there first
		}
		return err
	}
	return nil
}

func copyZipFile(f *zip.File, target string) error {
	in, err := f.Open()
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(target)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
