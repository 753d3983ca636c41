package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
)

const (
	chartName    = "bench-service"
	chartVersion = "1.0.0"
)

// chartRepository is the bench's chart, packaged and served on localhost
// as a Helm repository (index.yaml and the .tgz). The same .tgz is the
// artifact of helm-controller's ExternalArtifact.
type chartRepository struct {
	url    string // http://127.0.0.1:PORT
	digest string // sha256:HEX of the .tgz
	size   int64
	server *http.Server
}

// tarballURL is where the packaged chart is served.
func (r *chartRepository) tarballURL() string {
	return fmt.Sprintf("%s/%s-%s.tgz", r.url, chartName, chartVersion)
}

// serveChartRepository packages test/bench/peers/chart with the helm CLI,
// indexes it and serves the directory on a free port of 127.0.0.1.
func serveChartRepository(repoRoot, workDir, helm string) (*chartRepository, error) {
	dir := filepath.Join(workDir, "repository")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	chart := filepath.Join(repoRoot, "test", "bench", "peers", "chart")
	if out, err := exec.Command(helm, "package", chart, "--destination", dir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("helm package %s: %w: %s", chart, err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the chart repository: %w", err)
	}
	r := &chartRepository{url: "http://" + l.Addr().String()}
	if out, err := exec.Command(helm, "repo", "index", dir, "--url", r.url).CombinedOutput(); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("helm repo index %s: %w: %s", dir, err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s-%s.tgz", chartName, chartVersion)))
	if err != nil {
		_ = l.Close()
		return nil, err
	}
	sum := sha256.Sum256(data)
	r.digest, r.size = "sha256:"+hex.EncodeToString(sum[:]), int64(len(data))
	r.server = &http.Server{Handler: http.FileServer(http.Dir(dir))}
	go func() {
		if err := r.server.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			progress("chart repository stopped: %v", err)
		}
	}()
	progress("serving chart %s %s at %s", chartName, chartVersion, r.url)
	return r, nil
}

func (r *chartRepository) close() { _ = r.server.Close() }
