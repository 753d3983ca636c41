package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// repository returns the repository of t's commit of req.URL from the
// cache: fetched (by fetchRepo, into the empty repository it is given) only
// when the cache does not hold it, whoever asks and whatever they check out
// of it, so that the sparse sets of a monorepo's Components share one
// fetch of each commit. A request's own look at the remote found t (so it
// may read it); a submodule's commit is fetched without one, so its
// repository is shared by the requests of one Identity only (scope).
func (s *Source) repository(ctx context.Context, req *Request, scope string, t target, fetchRepo func(context.Context, *repoStorage) error) (fetch.Tree, error) {
	key := repoKey(req.URL, scope, t)
	if repo, ok := s.cache.LookupTree(key); ok {
		return repo, nil
	}
	repo, err := s.cache.StoreTree(key, func(dir string) (fetch.Tree, error) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fetch.Tree{}, err
		}
		st := openRepoStorage(dir, req.URL, s.limits())
		s.fetches.Add(1)
		ctx, span := startSpan(ctx, "git fetch", req)
		err := errors.Join(fetchRepo(ctx, st), st.close())
		endSpan(span, t.revision, err)
		if err != nil {
			return fetch.Tree{}, err
		}
		return fetch.Tree{URL: req.URL, Revision: t.revision, Digest: key}, nil
	})
	return repo, err
}

// repoKey names the repository of a commit in the cache: its URL, who may
// share it (scope), the commit and annotated tag, and the branch whose
// history it holds when it was fetched to find the commit in it.
func repoKey(url, scope string, t target) string {
	history := ""
	if t.history {
		history = t.refName
	}
	sum := sha256.New()
	fmt.Fprintf(sum, "git repository\x00%s\x00%s\x00%s\x00%s\x00%s", url, scope, t.commit, t.tag, history)
	return "sha256:" + hex.EncodeToString(sum.Sum(nil))
}

// holds reports whether the cache still holds repo: an entry it evicted
// is gone from disk.
func (s *Source) holds(repo fetch.Tree) bool {
	_, err := os.Stat(repo.Dir)
	return err == nil
}

// emptyDir removes what a checkout that failed wrote into dir.
func emptyDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clearing %s: %w", dir, err)
	}
	return nil
}
