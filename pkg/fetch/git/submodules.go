package git

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/wavekit-dev/wavekit/pkg/fetch/git/giturl"
)

// submodules returns what fetches a submodule of req's repository: its
// URL (relative ones resolved against the repository's) allowed by
// req.Allow, reached with req's credentials only at the repository's
// origin (scheme, host and port: never over http when the repository is
// reached over https), with its known_hosts and CA everywhere, the commit
// the tree records fetched one deep (once per req.Identity, whose look
// at the submodule is not made again: its repository is kept in the cache
// as any commit's), each look and fetch within the host's limit. The repositories it opens are added to opened, for the
// caller to close, and the URLs it reached to urls.
func (s *Source) submodules(req *Request, opened *[]*repoStorage, urls *[]string) func(context.Context, string, string, plumbing.Hash) (storer.EncodedObjectStorer, *object.Commit, error) {
	return func(ctx context.Context, at, raw string, commit plumbing.Hash) (storer.EncodedObjectStorer, *object.Commit, error) {
		moduleURL, err := moduleURL(req.URL, raw)
		if err != nil {
			return nil, nil, err
		}
		if req.Allow != nil {
			if err := req.Allow(moduleURL); err != nil {
				return nil, nil, err
			}
		}
		*urls = append(*urls, moduleURL)
		auth := req.Auth
		if auth != nil && !sameOrigin(moduleURL, req.URL) {
			auth = &Auth{KnownHosts: auth.KnownHosts, CA: auth.CA}
		}
		module := &Request{URL: moduleURL, Auth: auth, Proxy: req.Proxy, Timeout: req.Timeout, Allow: req.Allow}
		t := target{commit: commit, revision: "sha1:" + commit.String()}
		repo, err := s.repository(ctx, module, "submodule for "+req.Identity, t, func(ctx context.Context, st *repoStorage) error {
			return s.fetchModule(ctx, module, st, t)
		})
		if err != nil {
			return nil, nil, err
		}
		st := openRepoStorage(repo.Dir, moduleURL, s.limits())
		*opened = append(*opened, st)
		c, err := object.GetCommit(st, commit)
		if err != nil {
			return nil, nil, fmt.Errorf("reading commit %s of %s: %w", commit, redactURL(moduleURL), err)
		}
		return st, c, nil
	}
}

// fetchModule looks at a submodule's remote and fetches t, its commit,
// into st. Its errors are classified (classify), as a look's are.
func (s *Source) fetchModule(ctx context.Context, module *Request, st *repoStorage, t target) error {
	rem, err := remoteFor(module.URL, module.Auth, module.Proxy, module.timeout(), module.Allow)
	if err != nil {
		return err
	}
	seen, err := s.look(ctx, module, rem)
	if err != nil {
		return err
	}
	s.lookups.Add(1)
	return classify(s.fetchInto(ctx, module.URL, rem, st, t, seen), module)
}

// sameOrigin reports whether two URLs have one scheme, host and port.
func sameOrigin(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Scheme == ub.Scheme && strings.EqualFold(ua.Host, ub.Host)
}

// moduleURL resolves a submodule's URL as git does: ./ and ../ against the
// superproject's URL, user@host:path as ssh://; only the URLs parseURL
// accepts pass (never a local path).
func moduleURL(parent, raw string) (string, error) {
	if strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../") {
		u, err := url.Parse(parent)
		if err != nil {
			return "", err
		}
		u.Path = path.Join(u.Path, raw)
		raw = u.String()
	}
	raw = giturl.Normalize(raw)
	if _, err := parseURL(raw); err != nil {
		return "", err
	}
	return raw, nil
}
