package localrepo

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
)

// Artifacts serves .tar.gz files on localhost as Flux's source-controller
// serves the artifacts of its sources.
type Artifacts struct {
	server *httptest.Server
	mu     sync.Mutex
	files  map[string][]byte
}

// NewArtifacts starts an empty artifact server.
func NewArtifacts() *Artifacts {
	a := &Artifacts{files: map[string][]byte{}}
	a.server = httptest.NewServer(http.HandlerFunc(a.serve))
	return a
}

// Artifact is what a Flux source's status.artifact says of one artifact.
type Artifact struct {
	URL, Digest, Revision string
}

// Publish serves a .tar.gz of files (path → content) at /name and returns
// its URL and digest, with revision as given.
func (a *Artifacts) Publish(name, revision string, files map[string]string) (Artifact, error) {
	data, err := tarGz(files)
	if err != nil {
		return Artifact{}, fmt.Errorf("artifact %s: %w", name, err)
	}
	a.mu.Lock()
	a.files["/"+name] = data
	a.mu.Unlock()
	sum := sha256.Sum256(data)
	return Artifact{URL: a.server.URL + "/" + name, Digest: "sha256:" + hex.EncodeToString(sum[:]), Revision: revision}, nil
}

func (a *Artifacts) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	data, ok := a.files[r.URL.Path]
	a.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(data)
}

// Close stops serving.
func (a *Artifacts) Close() { a.server.Close() }

// tarGz archives files, sorted by path, as regular files.
func tarGz(files map[string]string) ([]byte, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, p := range paths {
		body := files[p]
		if err := tw.WriteHeader(&tar.Header{Name: p, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
