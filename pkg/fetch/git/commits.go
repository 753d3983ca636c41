package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"

	"k8s.io/utils/lru"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// refusalsRemembered bounds the refused commits and trees kept.
const refusalsRemembered = 4096

// repository returns the repository of t's commit of req.URL from the
// cache: fetched (by fetchRepo, into the empty repository it is given) only
// when the cache does not hold it, whoever asks and whatever they check out
// of it, so that the sparse sets of a monorepo's Components share one
// fetch of each commit. A request's own look at the remote found t (so it
// may read it); a submodule's commit is fetched without one, so its
// repository is shared by the requests of one Identity only (scope). A
// commit whose fetch was over a bound is refused again without a download.
func (s *Source) repository(ctx context.Context, req *Request, scope string, t target, fetchRepo func(context.Context, *repoStorage) error) (fetch.Tree, error) {
	key := repoKey(req.URL, scope, t)
	if err := s.refusals.of(key); err != nil {
		return fetch.Tree{}, err
	}
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
	s.refusals.remember(key, err)
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

// refusals remembers the commits and trees refused for what they are (a
// bound exceeded, an unsafe entry), which asking again cannot change: the
// bounds are the process's own.
type refusals struct{ byKey *lru.Cache }

func newRefusals() refusals { return refusals{byKey: lru.New(refusalsRemembered)} }

// of returns the refusal remembered for key, or nil.
func (r refusals) of(key string) error {
	if err, ok := r.byKey.Get(key); ok {
		return err.(error)
	}
	return nil
}

// remember keeps err for key if it is such a refusal.
func (r refusals) remember(key string, err error) {
	var (
		size   *fetch.SizeLimitError
		unsafe *UnsafeTreeError
	)
	if errors.As(err, &size) || errors.As(err, &unsafe) {
		r.byKey.Add(key, err)
	}
}
