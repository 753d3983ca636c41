package fetch

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.opentelemetry.io/otel/attribute"
)

// Artifact fetches a .tar.gz, such as a Flux source's artifact, checks it
// against req.Digest and returns its extracted root. The cache is keyed by
// the digest: an artifact it holds is not downloaded again.
func (f *Fetcher) Artifact(ctx context.Context, req ArtifactRequest) (Fetched, error) {
	ctx, span := startSpan(ctx, "fetch artifact")
	if span.IsRecording() {
		span.SetAttributes(attribute.String("url.full", redact(req.URL)))
	}
	got, err := f.artifact(ctx, req)
	endFetchSpan(span, got, err)
	return got, err
}

func (f *Fetcher) artifact(ctx context.Context, req ArtifactRequest) (Fetched, error) {
	shown := redact(req.URL)
	d, err := parseDigest(req.Digest)
	if err != nil {
		return Fetched{}, fmt.Errorf("artifact %s: %w", shown, err)
	}
	e, ok := f.cache.lookup(entryKey{artifactKind, d})
	if !ok {
		e, err = f.cache.store(entryKey{artifactKind, d}, func(tmp string) (entryMeta, error) {
			return f.fillArtifact(ctx, req, d, tmp)
		})
		if err != nil {
			return Fetched{}, err
		}
	}
	return Fetched{Dir: e.root(), URL: shown, Revision: req.Revision, Digest: d.String()}, nil
}

// fillArtifact downloads the artifact into tmp, checks its digest and
// extracts it into tmp/content.
func (f *Fetcher) fillArtifact(ctx context.Context, req ArtifactRequest, d digest, tmp string) (entryMeta, error) {
	shown := redact(req.URL)
	archive := filepath.Join(tmp, "artifact.tar.gz")
	if err := f.downloadChecked(ctx, req.URL, d, archive); err != nil {
		return entryMeta{}, err
	}
	file, err := os.Open(archive)
	if err != nil {
		return entryMeta{}, fmt.Errorf("artifact %s: %w", shown, err)
	}
	defer file.Close()
	if err := extractTarGz(file, filepath.Join(tmp, contentDir), f.maxSize, shown); err != nil {
		return entryMeta{}, err
	}
	file.Close()
	if err := os.Remove(archive); err != nil {
		return entryMeta{}, fmt.Errorf("artifact %s: %w", shown, err)
	}
	return entryMeta{URL: shown, Revision: req.Revision, Digest: d.String(), Root: contentDir}, nil
}

// downloadChecked downloads rawURL into the file path and checks that its
// digest is d.
func (f *Fetcher) downloadChecked(ctx context.Context, rawURL string, d digest, path string) error {
	file, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("artifact %s: %w", redact(rawURL), err)
	}
	defer file.Close()
	h := d.newHash()
	if err := f.download(ctx, f.client, rawURL, nil, io.MultiWriter(file, h)); err != nil {
		return err
	}
	if got := d.sum(h); got != d {
		return &DigestMismatchError{URL: redact(rawURL), Want: d.String(), Got: got.String()}
	}
	return file.Close()
}
