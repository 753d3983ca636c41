package krew

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Bin is the name of the binary in every archive: kubectl runs it for
// "kubectl wavekit".
const Bin = "kubectl-wavekit"

// Platform is an os/arch pair the CLI is built for.
type Platform struct{ OS, Arch string }

// Options say what to package and where the archives will be published.
type Options struct {
	// Dist holds the binaries wavekit-<Version>-<os>-<arch> (make cli) and
	// receives the archives and the manifest.
	Dist    string
	Version string
	// BaseURL is where the archives are downloaded from, for example a
	// release's download URL.
	BaseURL   string
	Platforms []Platform
	// ModTime is the time of the archives' entries (reproducible archives).
	ModTime time.Time
}

// ManifestName is the manifest's file name in Dist.
const ManifestName = "kubectl-wavekit.krew.yaml"

// Package writes an archive per platform and the manifest into Dist and
// returns the manifest's path.
func Package(opts Options) (string, error) {
	if !strings.HasPrefix(opts.Version, "v") {
		return "", fmt.Errorf("version %q: krew wants a semantic version with a v prefix", opts.Version)
	}
	var platforms []platform
	for _, p := range opts.Platforms {
		name := fmt.Sprintf("%s-%s-%s-%s.tar.gz", Bin, opts.Version, p.OS, p.Arch)
		sum, err := archive(filepath.Join(opts.Dist, fmt.Sprintf("wavekit-%s-%s-%s", opts.Version, p.OS, p.Arch)), filepath.Join(opts.Dist, name), opts.ModTime)
		if err != nil {
			return "", err
		}
		platforms = append(platforms, platform{
			Selector: selector{MatchLabels: map[string]string{"os": p.OS, "arch": p.Arch}},
			URI:      strings.TrimSuffix(opts.BaseURL, "/") + "/" + name, Sha256: sum, Bin: Bin,
		})
	}
	data, err := yaml.Marshal(manifest(opts.Version, platforms))
	if err != nil {
		return "", fmt.Errorf("encoding the krew manifest: %w", err)
	}
	path := filepath.Join(opts.Dist, ManifestName)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

// archive writes binary as Bin into a tar.gz at out and returns its sha256.
func archive(binary, out string, modTime time.Time) (string, error) {
	content, err := os.ReadFile(binary)
	if err != nil {
		return "", fmt.Errorf("reading the CLI binary (make cli): %w", err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	header := &tar.Header{Name: Bin, Mode: 0o755, Size: int64(len(content)), ModTime: modTime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(header); err != nil {
		return "", err
	}
	if _, err := tw.Write(content); err != nil {
		return "", err
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := gz.Close(); err != nil {
		return "", err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("writing %s: %w", out, err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), nil
}

// The Plugin manifest, krew.googlecontainertools.github.com/v1alpha2.
type (
	plugin struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Metadata   metadata `json:"metadata"`
		Spec       spec     `json:"spec"`
	}
	metadata struct {
		Name string `json:"name"`
	}
	spec struct {
		Version          string     `json:"version"`
		Homepage         string     `json:"homepage"`
		ShortDescription string     `json:"shortDescription"`
		Description      string     `json:"description"`
		Platforms        []platform `json:"platforms"`
	}
	platform struct {
		Selector selector `json:"selector"`
		URI      string   `json:"uri"`
		Sha256   string   `json:"sha256"`
		Bin      string   `json:"bin"`
	}
	selector struct {
		MatchLabels map[string]string `json:"matchLabels"`
	}
)

func manifest(version string, platforms []platform) plugin {
	return plugin{
		APIVersion: "krew.googlecontainertools.github.com/v1alpha2", Kind: "Plugin",
		Metadata: metadata{Name: "wavekit"},
		Spec: spec{
			Version: version, Homepage: "https://github.com/wavekit-dev/wavekit",
			ShortDescription: "Preview and drive wavekit Components wave by wave",
			Description: "kubectl wavekit previews what the wavekit operator will do with a Component,\n" +
				"wave by wave (diff component), lists Components (get), shows their objects\n" +
				"by wave with live health (tree), and asks for a pass now, suspends or resumes\n" +
				"them (reconcile, suspend, resume). It is the wavekit CLI.\n",
			Platforms: platforms,
		},
	}
}
