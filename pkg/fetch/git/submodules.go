package git

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// submodules returns what fetches a submodule of req's repository: its
// URL (relative ones resolved against the repository's) allowed by
// req.Allow, reached with req's credentials only on the same host (with
// its known_hosts everywhere), the commit the tree records fetched one
// deep. The repositories it makes are added to made, for the caller to
// remove, and the URLs it reached to urls.
func (s *Source) submodules(req *Request, made *[]*repoStorage, urls *[]string) func(context.Context, string, string, plumbing.Hash) (storer.EncodedObjectStorer, *object.Commit, error) {
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
		if auth != nil && hostOf(moduleURL) != hostOf(req.URL) {
			auth = &Auth{KnownHosts: auth.KnownHosts, CA: auth.CA}
		}
		rem, err := remoteFor(moduleURL, auth, req.Proxy, req.timeout())
		if err != nil {
			return nil, nil, err
		}
		s.lookups.Add(1)
		seen, err := rem.look(ctx)
		if err != nil {
			return nil, nil, classify(err, &Request{URL: moduleURL, Auth: auth})
		}
		st, err := newRepoStorage(s.cache, moduleURL, s.maxBytes)
		if err != nil {
			return nil, nil, err
		}
		*made = append(*made, st)
		s.fetches.Add(1)
		if err := rem.fetch(ctx, st, target{commit: commit}, seen); err != nil {
			return nil, nil, classify(err, &Request{URL: moduleURL, Auth: auth})
		}
		c, err := object.GetCommit(st, commit)
		if err != nil {
			return nil, nil, fmt.Errorf("reading commit %s of %s: %w", commit, moduleURL, err)
		}
		return st, c, nil
	}
}

// scpLike is git's user@host:path form of an SSH URL.
var scpLike = regexp.MustCompile(`^([^@/:]+@)?([^/:]+):([^/].*)$`)

// moduleURL resolves a submodule's URL as git does: ./ and ../ against the
// superproject's URL, user@host:path as ssh://; only the URLs parseURL
// accepts pass (never a local path).
func moduleURL(parent, raw string) (string, error) {
	switch {
	case strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../"):
		u, err := url.Parse(parent)
		if err != nil {
			return "", err
		}
		u.Path = path.Join(u.Path, raw)
		raw = u.String()
	case !strings.Contains(raw, "://") && scpLike.MatchString(raw):
		m := scpLike.FindStringSubmatch(raw)
		raw = "ssh://" + m[1] + m[2] + "/" + m[3]
	}
	if _, err := parseURL(raw); err != nil {
		return "", err
	}
	return raw, nil
}
