package git

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"k8s.io/utils/lru"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// Defaults of a Source's bounds.
const (
	// DefaultMaxSize bounds what one fetch receives and what one tree
	// writes to disk.
	DefaultMaxSize = 256 << 20
	// DefaultMaxObjectSize bounds what one object of a fetch inflates to,
	// which go-git holds in memory while it indexes the pack.
	DefaultMaxObjectSize = 16 << 20
	// DefaultMaxFiles bounds the files one tree writes.
	DefaultMaxFiles = 200_000
	// DefaultHostConcurrency bounds the looks and fetches under way at
	// once per host.
	DefaultHostConcurrency = 4
)

// verificationsRemembered bounds the verifications kept, by key ring and
// object.
const verificationsRemembered = 4096

// Source fetches trees of Git repositories into a fetch.Cache and shares
// what it can between requests: the looks at a remote's refs (one at a
// time per URL and identity, each serving every request that accepts its
// age), the fetches (one per commit, whoever asks and whatever they check
// out of it), and the verifications.
// It is safe for concurrent use.
type Source struct {
	cache     *fetch.Cache
	maxBytes  int64
	maxObject int64
	maxFiles  int
	hosts     *hostLimits
	looks     *looks
	changed   func([]string)

	verified *lru.Cache // key ring digest and object hash → what verified it
	refusals refusals   // commits and trees refused for what they are

	lookups, fetches atomic.Int64
}

// Option tunes a Source.
type Option func(*Source)

// WithMaxSize bounds what one fetch receives and one tree writes (default
// DefaultMaxSize): past it, a fetch fails with a fetch.SizeLimitError.
func WithMaxSize(bytes int64) Option { return func(s *Source) { s.maxBytes = bytes } }

// WithMaxObjectSize bounds what one object of a fetch may inflate to
// (default DefaultMaxObjectSize, which n < 1 keeps): go-git holds an object
// whole in memory while it indexes a pack, so this bounds the memory of a
// fetch. Past it, a fetch fails with a fetch.SizeLimitError before go-git
// reads the pack.
func WithMaxObjectSize(n int64) Option {
	return func(s *Source) {
		if n > 0 {
			s.maxObject = n
		}
	}
}

// WithMaxFiles bounds the files one tree writes (default DefaultMaxFiles).
func WithMaxFiles(n int) Option { return func(s *Source) { s.maxFiles = n } }

// WithHostConcurrency bounds the looks and fetches under way at once per
// host (default DefaultHostConcurrency, which n < 1 keeps).
func WithHostConcurrency(n int) Option {
	return func(s *Source) {
		if n > 0 {
			s.hosts = newHostLimits(n)
		}
	}
}

// WithOnChange is told, when a look at a remote finds its refs moved, the
// Consumers of the requests that used it lately, so that they look again
// at once rather than at their own interval.
func WithOnChange(changed func(consumers []string)) Option {
	return func(s *Source) { s.changed = changed }
}

// New returns a Source that keeps trees in cache.
func New(cache *fetch.Cache, opts ...Option) *Source {
	s := &Source{cache: cache, maxBytes: DefaultMaxSize, maxObject: DefaultMaxObjectSize, maxFiles: DefaultMaxFiles, hosts: newHostLimits(DefaultHostConcurrency),
		verified: lru.New(verificationsRemembered), refusals: newRefusals()}
	for _, o := range opts {
		o(s)
	}
	s.looks = newLooks(func(c []string) {
		if s.changed != nil {
			s.changed(c)
		}
	}, func() { s.lookups.Add(1) })
	return s
}

// Stats counts what a Source asked remotes.
type Stats struct {
	// Lookups are looks at a remote's refs.
	Lookups int64
	// Fetches are commits fetched (a submodule's count too).
	Fetches int64
}

// Stats says what the Source has asked remotes so far.
func (s *Source) Stats() Stats {
	return Stats{Lookups: s.lookups.Load(), Fetches: s.fetches.Load()}
}

// Get returns the tree of the commit req's ref names: it looks at the
// remote's refs (or uses a look no older than req.MaxAge), fetches the
// commit unless the cache holds its tree, and verifies what req.Verify
// asks before returning it.
func (s *Source) Get(ctx context.Context, req Request) (Tree, error) {
	if err := req.validate(); err != nil {
		return Tree{}, err
	}
	rem := &connector{req: &req}
	t, stored, err := s.fetched(ctx, &req, rem, req.MaxAge)
	var stale *staleLookError
	if errors.As(err, &stale) {
		// The look this request rode on is older than the reference it
		// resolved, whose commit the remote no longer serves: look again.
		t, stored, err = s.fetched(ctx, &req, rem, 0)
	}
	if err != nil {
		return Tree{}, err
	}
	if err := allowModules(&req, stored); err != nil {
		return Tree{}, err
	}
	tree := Tree{Dir: stored.Dir, URL: req.URL, Commit: t.commit.String(), RefName: t.refName, Revision: t.revision,
		Digest: stored.Digest, Identity: "commit " + t.commit.String()}
	if len(req.Checkout.SparsePaths) > 0 {
		tree.Identity = "content " + stored.Digest
	}
	if req.Verify != nil {
		if tree.Verified, err = s.verify(&req, t, stored); err != nil {
			return Tree{}, err
		}
	}
	return tree, nil
}

// fetched resolves req's ref in a look no older than maxAge and returns
// the tree of its commit.
func (s *Source) fetched(ctx context.Context, req *Request, rem *connector, maxAge time.Duration) (target, fetch.Tree, error) {
	seen, err := s.refs(ctx, req, rem, maxAge)
	if err != nil {
		return target{}, fetch.Tree{}, err
	}
	t, err := seen.resolve(redactURL(req.URL), req.Ref)
	if err != nil {
		return target{}, fetch.Tree{}, err
	}
	stored, err := s.tree(ctx, req, rem, t, seen)
	return t, stored, err
}

// refs returns the remote's refs as a shared look no older than maxAge saw
// them. The look serves every request that waits for it, so the end of
// ctx ends only this request's wait; the look has its own timeout.
func (s *Source) refs(ctx context.Context, req *Request, conn *connector, maxAge time.Duration) (refs, error) {
	key := lookKey{url: req.URL, identity: req.Identity}
	who := consumer{name: req.Consumer, maxAge: maxAge, watch: watchOf(req.Ref)}
	return s.looks.get(ctx, key, who, func() (refs, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), req.timeout())
		defer cancel()
		ctx, span := startSpan(ctx, "git look", req)
		rem, err := conn.remote(ctx)
		var r refs
		if err == nil {
			r, err = s.look(ctx, req, rem)
		}
		err = timedOut(ctx, req, err)
		endSpan(span, "", err)
		return r, err
	})
}

// look makes one look at req's remote, rem.
func (s *Source) look(ctx context.Context, req *Request, rem *remote) (refs, error) {
	release, err := s.hosts.acquire(ctx, hostOf(req.URL))
	if err != nil {
		return refs{}, err
	}
	defer release()
	r, err := rem.look(ctx)
	if err != nil {
		return refs{}, fmt.Errorf("looking at %s: %w", redactURL(req.URL), classify(err, req))
	}
	return r, nil
}

// tree returns the tree of t from the cache, checking it out of the
// commit's repository (fetched once, whoever asks: repository) when the
// cache does not hold it. A tree refused once (over a bound, unsafe) is
// refused again without being written.
func (s *Source) tree(ctx context.Context, req *Request, conn *connector, t target, seen refs) (fetch.Tree, error) {
	key := treeKey(req, t)
	if err := s.refusals.of(key); err != nil {
		return fetch.Tree{}, err
	}
	if stored, ok := s.cache.LookupTree(key); ok {
		return stored, nil
	}
	stored, err := s.cache.StoreTree(key, func(dir string) (fetch.Tree, error) {
		ctx, cancel := context.WithTimeout(ctx, req.timeout())
		defer cancel()
		stored, err := s.checkedOut(ctx, req, conn, t, seen, dir)
		if err = timedOut(ctx, req, err); err != nil {
			return fetch.Tree{}, fmt.Errorf("fetching %s of %s: %w", t.revision, redactURL(req.URL), classify(err, req))
		}
		return stored, nil
	})
	s.refusals.remember(key, err)
	return stored, err
}

// treeKey names a tree in the cache: the repository, the commit (and
// annotated tag), and what of it is written.
func treeKey(req *Request, t target) string {
	sum := sha256.New()
	sparse := append([]string(nil), req.Checkout.SparsePaths...)
	sort.Strings(sparse)
	fmt.Fprintf(sum, "git\x00%s\x00%s\x00%s\x00%s\x00%s\x00%t", req.URL, t.commit, t.tag, strings.Join(sparse, "\x00"), req.Checkout.Ignore, req.Checkout.Submodules)
	return "sha256:" + hex.EncodeToString(sum.Sum(nil))
}

// checkedOut writes t's tree into dir from the repository of its commit.
// A repository the cache evicted while it was read is fetched again, once.
func (s *Source) checkedOut(ctx context.Context, req *Request, conn *connector, t target, seen refs, dir string) (fetch.Tree, error) {
	fetchRepo := func(ctx context.Context, st *repoStorage) error {
		rem, err := conn.remote(ctx)
		if err != nil {
			return err
		}
		return s.fetchInto(ctx, req.URL, rem, st, t, seen)
	}
	for try := 0; ; try++ {
		repo, err := s.repository(ctx, req, "", t, fetchRepo)
		if err != nil {
			return fetch.Tree{}, err
		}
		stored, err := s.checkout(ctx, req, repo, t, dir)
		if err == nil || try > 0 || s.holds(repo) {
			return stored, err
		}
		if err := emptyDir(dir); err != nil {
			return fetch.Tree{}, err
		}
	}
}

// checkout writes t's tree into dir out of repo, the repository of its
// commit, with its submodules if req asks for them, and keeps the raw
// commit and tag objects with it for a later verification.
func (s *Source) checkout(ctx context.Context, req *Request, repo fetch.Tree, t target, dir string) (fetch.Tree, error) {
	st := openRepoStorage(repo.Dir, req.URL, s.limits())
	defer func() { _ = st.close() }() // read only: nothing to lose
	commit, err := object.GetCommit(st, t.commit)
	if err != nil {
		return fetch.Tree{}, fmt.Errorf("reading commit %s: %w", t.commit, err)
	}
	co := newCheckout(dir, redactURL(req.URL), t.commit.String(), req.Checkout, s.maxBytes, s.maxFiles)
	var modules []*repoStorage
	defer func() {
		for _, m := range modules {
			_ = m.close()
		}
	}()
	var moduleURLs []string
	if req.Checkout.Submodules {
		co.submodule = s.submodules(req, &modules, &moduleURLs)
	}
	digest, err := co.write(ctx, st, commit)
	if err != nil {
		return fetch.Tree{}, err
	}
	extra := map[string]string{}
	if len(moduleURLs) > 0 {
		extra["submodules"] = strings.Join(moduleURLs, "\n")
	}
	if extra["commit"], err = rawOf(st, plumbing.CommitObject, t.commit); err != nil {
		return fetch.Tree{}, err
	}
	if !t.tag.IsZero() {
		if extra["tag"], err = rawOf(st, plumbing.TagObject, t.tag); err != nil {
			return fetch.Tree{}, err
		}
	}
	return fetch.Tree{URL: req.URL, Revision: t.revision, Digest: digest, Extra: extra}, nil
}

// limits are what bound one fetch.
func (s *Source) limits() limits {
	return limits{pack: s.maxBytes, object: min(s.maxObject, s.maxBytes)}
}

// fetchInto fetches t into st, holding one of the host's connections
// meanwhile (and only meanwhile: a submodule's fetch takes its own).
func (s *Source) fetchInto(ctx context.Context, url string, rem *remote, st *repoStorage, t target, seen refs) error {
	release, err := s.hosts.acquire(ctx, hostOf(url))
	if err != nil {
		return err
	}
	defer release()
	return rem.fetch(ctx, st, t, seen)
}

// rawOf is an object's raw content, base64: what a signature is checked
// against later, from the cache, without fetching again.
func rawOf(st *repoStorage, kind plumbing.ObjectType, h plumbing.Hash) (string, error) {
	obj, err := st.EncodedObject(kind, h)
	if err != nil {
		return "", fmt.Errorf("reading %s %s: %w", kind, h, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return "", err
	}
	defer r.Close()
	raw, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(raw), nil
}

// connector builds how a request reaches its remote once, when a look or
// a fetch first needs it: only then are its credentials read.
type connector struct {
	req  *Request
	once sync.Once
	rem  *remote
	err  error
}

func (c *connector) remote(ctx context.Context) (*remote, error) {
	c.once.Do(func() {
		if c.req.Credentials != nil {
			c.req.Auth, c.req.Proxy, c.err = c.req.Credentials(ctx)
			if c.err != nil {
				return
			}
		}
		c.rem, c.err = remoteFor(c.req.URL, c.req.Auth, c.req.Proxy, c.req.timeout(), c.req.Allow)
	})
	return c.rem, c.err
}

// allowModules asks req.Allow about the submodules of a tree the cache
// held: a tree fetched for one request may have reached URLs another one
// is not allowed.
func allowModules(req *Request, stored fetch.Tree) error {
	if req.Allow == nil || stored.Extra["submodules"] == "" {
		return nil
	}
	for _, url := range strings.Split(stored.Extra["submodules"], "\n") {
		if err := req.Allow(url); err != nil {
			return err
		}
	}
	return nil
}

// timedOut says which timeout ended a look or a fetch: its context's, or
// the deadline of an SSH connection, which is the context's.
func timedOut(ctx context.Context, req *Request, err error) error {
	if err != nil && (errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded)) {
		return fmt.Errorf("%w (the timeout of %s passed)", err, req.timeout())
	}
	return err
}
