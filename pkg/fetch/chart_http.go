package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/repo"
)

// chartArchive is a chart version's archive in a Helm repository.
type chartArchive struct {
	url     string
	version string
	// creds are the repository's credentials if the archive is on the
	// repository's host, else nil: as Helm does, a login is not sent to
	// another host an index points to.
	creds  *Credentials
	client *http.Client
}

// chartFromRepository fetches a chart from a Helm repository: its
// index.yaml (unless one younger than MaxAge is at hand), then the archive
// (unless the cache holds it), checked against the index's digest.
func (f *Fetcher) chartFromRepository(ctx context.Context, req ChartRequest) (Fetched, error) {
	base := strings.TrimSuffix(req.Repository, "/")
	client, err := f.clientFor(req.Credentials)
	if err != nil {
		return Fetched{}, fmt.Errorf("chart repository %s: %w", redact(base), err)
	}
	vs, err := f.versions.get(sourceKey(req.Credentials, "index", base), req.MaxAge, func() (*repo.IndexFile, error) {
		return f.fetchIndex(ctx, client, base, req.Credentials)
	})
	if err != nil {
		return Fetched{}, err
	}
	cv, err := pickVersion(vs.index, req.Name, req.Version, redact(base))
	if err != nil {
		return Fetched{}, err
	}
	archive, err := archiveOf(base, cv, req.Credentials, client)
	if err != nil {
		return Fetched{}, err
	}
	if cv.Digest == "" {
		return f.chartWithoutDigest(ctx, req, archive, cv)
	}
	d, err := parseDigest(indexDigest(cv.Digest))
	if err != nil {
		return Fetched{}, fmt.Errorf("index of %s: chart %s %s: %w", redact(base), cv.Name, cv.Version, err)
	}
	return f.chartWithDigest(ctx, req, archive, d)
}

// indexDigest reads an index's digest: hex sha256 as Helm writes it, or
// "<algorithm>:<hex>".
func indexDigest(s string) string {
	if strings.Contains(s, ":") {
		return s
	}
	return "sha256:" + s
}

// fetchIndex downloads and reads a repository's index.yaml.
func (f *Fetcher) fetchIndex(ctx context.Context, client *http.Client, base string, creds *Credentials) (*repo.IndexFile, error) {
	indexURL, err := url.JoinPath(base, "index.yaml")
	if err != nil {
		return nil, fmt.Errorf("chart repository %s: %w", redact(base), err)
	}
	file, err := f.cache.tempFile("index-*.yaml")
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", redact(indexURL), err)
	}
	defer os.Remove(file.Name())
	defer file.Close()
	if err := f.download(ctx, client, indexURL, creds, file); err != nil {
		return nil, err
	}
	if err := file.Close(); err != nil {
		return nil, fmt.Errorf("fetching %s: %w", redact(indexURL), err)
	}
	index, err := repo.LoadIndexFile(file.Name())
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", redact(indexURL), innermost(err))
	}
	return index, nil
}

// innermost returns the error err wraps, and so on to the end: the cause
// alone of an error that names a temporary file.
func innermost(err error) error {
	for inner := errors.Unwrap(err); inner != nil; inner = errors.Unwrap(err) {
		err = inner
	}
	return err
}

// archiveOf says where cv's archive is: its first URL, relative to the
// repository unless absolute.
func archiveOf(base string, cv *repo.ChartVersion, creds *Credentials, client *http.Client) (chartArchive, error) {
	if len(cv.URLs) == 0 {
		return chartArchive{}, fmt.Errorf("index of %s: chart %s %s has no URL", redact(base), cv.Name, cv.Version)
	}
	archiveURL, err := repo.ResolveReferenceURL(base, cv.URLs[0])
	if err != nil {
		return chartArchive{}, fmt.Errorf("index of %s: chart %s %s: %w", redact(base), cv.Name, cv.Version, err)
	}
	a := chartArchive{url: archiveURL, version: cv.Version, client: client}
	if sameHost(base, archiveURL) {
		a.creds = creds
	}
	return a, nil
}

// sameHost reports whether two URLs have the same scheme and host.
func sameHost(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}

// chartWithDigest fetches an archive whose digest the index gives: from
// the cache if it holds it, else downloaded and checked; verified first if
// req asks for it.
func (f *Fetcher) chartWithDigest(ctx context.Context, req ChartRequest, a chartArchive, d digest) (Fetched, error) {
	shown := redact(a.url)
	download := once(func(ctx context.Context) ([]byte, error) {
		data, err := f.downloadChart(ctx, a)
		if err != nil {
			return nil, err
		}
		if got := digestOf(d.algorithm, data); got != d {
			return nil, &DigestMismatchError{URL: shown, Want: d.String(), Got: got.String()}
		}
		return data, nil
	})
	verified, err := f.verifyArchive(ctx, req, a, d, download)
	if err != nil {
		return Fetched{}, err
	}
	if e, ok := f.cache.lookup(entryKey{chartKind, d}); ok {
		return withVerified(fetchedChart(e, shown, a.version), verified), nil
	}
	e, err := f.cache.store(entryKey{chartKind, d}, func(tmp string) (entryMeta, error) {
		data, err := download(ctx)
		if err != nil {
			return entryMeta{}, err
		}
		return chartMeta(tmp, data, shown, a.version, d)
	})
	if err != nil {
		return Fetched{}, err
	}
	return withVerified(fetchedChart(e, shown, a.version), verified), nil
}

// chartWithoutDigest fetches an archive the index gives no digest for: it
// is downloaded to learn its digest, which is then remembered for as long
// as the index says the same of the archive (URL, version, creation time).
func (f *Fetcher) chartWithoutDigest(ctx context.Context, req ChartRequest, a chartArchive, cv *repo.ChartVersion) (Fetched, error) {
	shown := redact(a.url)
	key := strings.Join([]string{a.url, a.version, cv.Created.UTC().Format(time.RFC3339Nano)}, " ")
	if d, ok := f.archiveDigests.Load(key); ok {
		if e, ok := f.cache.lookup(entryKey{chartKind, d.(digest)}); ok {
			verified, err := f.verifyArchive(ctx, req, a, d.(digest), once(func(ctx context.Context) ([]byte, error) {
				return f.downloadChart(ctx, a)
			}))
			if err != nil {
				return Fetched{}, err
			}
			return withVerified(fetchedChart(e, shown, a.version), verified), nil
		}
	}
	data, err := f.downloadChart(ctx, a)
	if err != nil {
		return Fetched{}, err
	}
	d := digestOf("sha256", data)
	verified, err := f.verifyArchive(ctx, req, a, d, func(context.Context) ([]byte, error) { return data, nil })
	if err != nil {
		return Fetched{}, err
	}
	e, err := f.cache.store(entryKey{chartKind, d}, func(tmp string) (entryMeta, error) {
		return chartMeta(tmp, data, shown, a.version, d)
	})
	if err != nil {
		return Fetched{}, err
	}
	f.archiveDigests.Store(key, d)
	return withVerified(fetchedChart(e, shown, a.version), verified), nil
}

// verifyArchive runs req's Verifier, if any, on an archive of a Helm
// repository, with its provenance file beside it (<archive URL>.prov).
func (f *Fetcher) verifyArchive(ctx context.Context, req ChartRequest, a chartArchive, d digest, archive func(context.Context) ([]byte, error)) (string, error) {
	if req.Verifier == nil {
		return "", nil
	}
	name := a.url
	if u, err := url.Parse(a.url); err == nil {
		name = u.Path
	}
	provenance := once(func(ctx context.Context) ([]byte, error) {
		var buf bytes.Buffer
		if err := f.download(ctx, a.client, a.url+".prov", a.creds, &buf); err != nil {
			return nil, fmt.Errorf("provenance file: %w", err)
		}
		return buf.Bytes(), nil
	})
	return f.verify(ctx, req, Subject{Source: redact(a.url), Digest: d.String(), ArchiveName: path.Base(name), Archive: archive, Provenance: provenance})
}

func (f *Fetcher) downloadChart(ctx context.Context, a chartArchive) ([]byte, error) {
	var buf bytes.Buffer
	if err := f.download(ctx, a.client, a.url, a.creds, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// chartMeta expands a checked archive into tmp and describes the entry.
func chartMeta(tmp string, data []byte, source, version string, d digest) (entryMeta, error) {
	root, err := expandChart(tmp, data, source)
	if err != nil {
		return entryMeta{}, err
	}
	return entryMeta{URL: source, Revision: version, Digest: d.String(), Root: root}, nil
}
