package git

import (
	"context"
	"errors"
	"fmt"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
)

// look asks the remote for its references: one ref advertisement (an
// HTTP GET of info/refs, or an SSH session of git-upload-pack that ends
// there), what `git ls-remote` does.
func (r *remote) look(ctx context.Context) (refs, error) {
	ep, err := r.endpoint()
	if err != nil {
		return refs{}, err
	}
	ctx, done, err := r.bind(ctx, &ep.Proxy)
	if err != nil {
		return refs{}, err
	}
	defer done()
	cl, err := client.NewClient(ep)
	if err != nil {
		return refs{}, err
	}
	sess, err := cl.NewUploadPackSession(ep, r.auth)
	if err != nil {
		return refs{}, r.failed(err)
	}
	stop := context.AfterFunc(ctx, func() { _ = sess.Close() })
	defer stop()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	closeErr := sess.Close()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		return refs{}, r.failed(err)
	}
	_ = closeErr // a session that said all it had to is done
	return refsOf(ar), nil
}

func (r *remote) endpoint() (*transport.Endpoint, error) {
	ep, err := transport.NewEndpoint(r.url)
	if err != nil {
		return nil, &RequestError{Field: "url", Err: err}
	}
	ep.CaBundle, ep.ClientCert, ep.ClientKey, ep.Proxy = r.ca, r.cert, r.key, r.proxy
	return ep, nil
}

// failed prefers the host key refusal, when there was one, to what the
// SSH library made of it.
func (r *remote) failed(err error) error {
	if refused := r.refused(); refused != nil {
		return refused
	}
	return err
}

// fetch brings t's commit (and its annotated tag) into st: one commit deep,
// or the branch's whole history when t needs it, no other tags.
func (r *remote) fetch(ctx context.Context, st *repoStorage, t target, seen refs) error {
	spec, depth, byName, err := fetchSpec(t, seen)
	if err != nil {
		return err
	}
	rem := gogit.NewRemote(st, &config.RemoteConfig{Name: "origin", URLs: []string{r.url}})
	opts := &gogit.FetchOptions{
		RemoteName: "origin", RefSpecs: []config.RefSpec{spec}, Depth: depth, Tags: gogit.NoTags, Force: true,
		Auth: r.auth, CABundle: r.ca, ClientCert: r.cert, ClientKey: r.key, ProxyOptions: r.proxy,
	}
	ctx, done, err := r.bind(ctx, &opts.ProxyOptions)
	if err != nil {
		return err
	}
	defer done()
	err = rem.FetchContext(ctx, opts)
	switch {
	case errors.Is(err, gogit.NoErrAlreadyUpToDate):
		err = nil
	case errors.Is(err, gogit.ErrExactSHA1NotSupported):
		return fmt.Errorf("%s does not serve commit %s by itself: name the branch that holds it (ref.branch)", redactURL(r.url), t.commit)
	}
	if err != nil {
		return r.failed(err)
	}
	if t.history {
		return holds(st, seen.hashes[t.refName], t)
	}
	if byName {
		return fetchedWhatWasSeen(st, spec.Src(), t)
	}
	return nil
}

// fetchSpec is what to ask the remote for, and whether it names a
// reference (which may have moved since the look that resolved t): the
// branch's history for a commit within it; else the commit itself where
// the remote serves any commit it holds by its SHA-1, so that what a look
// saw is what is fetched, however old the look; else the reference t
// resolved, or one whose tip the commit is; else the commit itself where
// the remote serves the tips of its references by SHA-1. An annotated tag
// is fetched by its name, which brings the tag object too.
func fetchSpec(t target, seen refs) (spec config.RefSpec, depth int, byName bool, err error) {
	name := t.refName
	if name == "HEAD" || name == "" {
		name = seen.tipOf(t.commit)
	}
	wanted := config.RefSpec(t.commit.String() + ":refs/heads/wavekit-wanted")
	switch {
	case t.history:
		return config.RefSpec("+" + t.refName + ":" + t.refName), 0, false, nil
	case seen.reachable && t.tag.IsZero():
		return wanted, 1, false, nil
	case name != "":
		return config.RefSpec("+" + name + ":" + name), 1, true, nil
	case seen.tips:
		return wanted, 1, false, nil
	}
	return "", 0, false, fmt.Errorf("commit %s is the tip of no reference, and the remote does not serve a commit by its SHA-1: name the branch that holds it (ref.branch)", t.commit)
}

// fetchedWhatWasSeen checks that a fetch by a reference's name brought the
// commit (and tag) the look saw it at: else the reference moved since.
func fetchedWhatWasSeen(st *repoStorage, name string, t target) error {
	for _, h := range []plumbing.Hash{t.commit, t.tag} {
		// (With ExclusiveAccess, go-git's HasEncodedObject looks at the
		// loose objects only.)
		if _, err := st.EncodedObjectSize(h); !h.IsZero() && err != nil {
			return &staleLookError{Ref: name, Seen: h}
		}
	}
	return nil
}

// holds checks that the branch's history, from tip, holds t's commit.
func holds(st storer.EncodedObjectStorer, tip plumbing.Hash, t target) error {
	start, err := object.GetCommit(st, tip)
	if err != nil {
		return fmt.Errorf("reading the tip of %s: %w", t.refName, err)
	}
	found := errors.New("found")
	err = object.NewCommitPreorderIter(start, nil, nil).ForEach(func(c *object.Commit) error {
		if c.Hash == t.commit {
			return found
		}
		return nil
	})
	if errors.Is(err, found) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("walking %s: %w", t.refName, err)
	}
	return fmt.Errorf("commit %s is not in the history of %s", t.commit, t.refName)
}
