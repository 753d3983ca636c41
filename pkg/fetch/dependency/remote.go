package dependency

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// remote brings a dependency of a Helm repository or an OCI registry: what
// a resolution of the same identity, reference, name and version gave
// within MaxAge (no request, no credentials read), else what the Fetcher
// gives (its index, tag and archive caches).
func (w *walk) remote(ctx context.Context, n node, d *chart.Dependency, ref reference, version string) (brought, error) {
	repoURL, err := w.repositoryURL(ctx, n, d, ref)
	if err != nil {
		return brought{}, err
	}
	if w.access.Allow != nil {
		if err := w.access.Allow(repoURL, d.Name); err != nil {
			return brought{}, err
		}
	}
	key := strings.Join([]string{w.access.Identity, ref.raw, d.Name, version}, "\x00")
	if res, ok := w.r.resolutions.get(key, w.access.MaxAge); ok {
		if ch, ok, err := w.r.loaded.load(res.resolved.Digest, res.dir); err == nil && ok {
			return broughtFrom(n, d, ch, res), nil
		}
	}
	fail := func(err error) (brought, error) {
		return brought{}, &Error{Dependency: dependencyPath(n, d), Repository: redact(repoURL), Err: err}
	}
	fetched, err := w.fetch(ctx, repoURL, d.Name, version)
	if err != nil {
		return fail(err)
	}
	ch, ok, err := w.r.loaded.load(fetched.Digest, fetched.Dir)
	switch {
	case err != nil:
		return fail(fmt.Errorf("loading %s %s: %w", d.Name, fetched.Revision, err))
	case !ok:
		return fail(fmt.Errorf("loading %s %s: the cache no longer holds it", d.Name, fetched.Revision))
	case ch.Name() != d.Name:
		return fail(fmt.Errorf("%s holds chart %s, not %s", fetched.URL, ch.Name(), d.Name))
	}
	res := resolution{dir: fetched.Dir, resolved: Resolved{Name: d.Name, Repository: redact(repoURL), Version: fetched.Revision,
		Digest: fetched.Digest, Verified: fetched.Verified}}
	w.r.resolutions.put(key, res)
	return broughtFrom(n, d, ch, res), nil
}

// broughtFrom is what bring adds for entry d of n's chart, resolved to res.
func broughtFrom(n node, d *chart.Dependency, ch *chart.Chart, res resolution) brought {
	resolved := res.resolved
	resolved.Path = resolvedPath(n, d)
	return brought{chart: ch, at: place{dir: res.dir, root: res.dir}, resolved: resolved}
}

// fetch asks the Fetcher for chart name at version of the repository at
// repoURL, with the credentials and verification the access gives it.
func (w *walk) fetch(ctx context.Context, repoURL, name, version string) (fetch.Fetched, error) {
	repo, err := w.repositoryFor(ctx, repoURL)
	if err != nil {
		return fetch.Fetched{}, err
	}
	req := fetch.ChartRequest{Repository: repoURL, Name: name, Version: version, Credentials: repo.Credentials,
		Insecure: repo.PlainHTTP, MaxAge: w.access.MaxAge}
	if w.access.Verifier != nil {
		if req.Verifier, err = w.access.Verifier(ctx, repoURL); err != nil {
			return fetch.Fetched{}, err
		}
	}
	return w.r.fetcher.Chart(ctx, req)
}

// repositoryURL is the URL of a dependency's repository: as written, or
// the URL of the repository @name or alias:name names.
func (w *walk) repositoryURL(ctx context.Context, n node, d *chart.Dependency, ref reference) (string, error) {
	if ref.kind != named {
		return ref.value, nil
	}
	repoURL, found, err := w.nameURL(ctx, ref.value)
	switch {
	case err != nil:
		return "", err
	case !found:
		where := w.access.NamesFrom
		if where == "" {
			where = "the repositories given"
		}
		return "", &ReferenceError{Dependency: dependencyPath(n, d), Repository: ref.raw,
			Reason: fmt.Sprintf("no repository is named %s in %s", ref.value, where)}
	}
	return repoURL, nil
}

// nameURL maps a repository name to its URL: as the identity's last
// mapping within MaxAge, else from the access's repositories.
func (w *walk) nameURL(ctx context.Context, name string) (string, bool, error) {
	key := w.access.Identity + "\x00" + name
	if got, ok := w.r.names.get(key, w.access.MaxAge); ok {
		return got.url, got.found, nil
	}
	repos, err := w.repositories(ctx)
	if err != nil {
		return "", false, err
	}
	repo, found := repos.Named(name)
	w.r.names.put(key, nameLookup{url: repo.URL, found: found})
	return repo.URL, found, nil
}

// repositoryFor returns the repository whose credentials reach repoURL,
// or none (anonymous).
func (w *walk) repositoryFor(ctx context.Context, repoURL string) (Repository, error) {
	repos, err := w.repositories(ctx)
	if err != nil {
		return Repository{}, err
	}
	repo, _ := repos.ForURL(repoURL)
	return repo, nil
}

// repositories reads the access's repositories, once a walk.
func (w *walk) repositories(ctx context.Context) (Repositories, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.repos != nil {
		return *w.repos, nil
	}
	var repos Repositories
	if w.access.Repositories != nil {
		var err error
		if repos, err = w.access.Repositories(ctx); err != nil {
			return nil, err
		}
	}
	w.repos = &repos
	return repos, nil
}

// redact hides the password of a URL that carries one, for messages and
// status.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}
