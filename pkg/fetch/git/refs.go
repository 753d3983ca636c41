package git

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
)

// refs is what a look at a remote saw: its references and what it allows.
type refs struct {
	// hashes maps each reference's full name to what it points at (an
	// annotated tag's object for a tag).
	hashes map[string]plumbing.Hash
	// peeled maps an annotated tag's name to its commit.
	peeled map[string]plumbing.Hash
	// head is the branch HEAD points at (refs/heads/main), if the remote
	// says.
	head string
	// reachable is true when the remote serves any commit it holds by its
	// SHA-1 (allow-reachable-sha1-in-want), tips when it serves the tips
	// of its references so (allow-tip-sha1-in-want).
	reachable, tips bool
}

// refsOf reads an advertisement.
func refsOf(ar *packp.AdvRefs) refs {
	r := refs{hashes: make(map[string]plumbing.Hash, len(ar.References)+1), peeled: make(map[string]plumbing.Hash, len(ar.Peeled))}
	for name, hash := range ar.References {
		r.hashes[name] = hash
	}
	for name, hash := range ar.Peeled {
		r.peeled[name] = hash
	}
	if ar.Head != nil {
		r.hashes["HEAD"] = *ar.Head
	}
	for _, v := range ar.Capabilities.Get(capability.SymRef) {
		if from, to, ok := strings.Cut(v, ":"); ok && from == "HEAD" {
			r.head = to
		}
	}
	r.reachable = ar.Capabilities.Supports(capability.AllowReachableSHA1InWant)
	r.tips = r.reachable || ar.Capabilities.Supports(capability.AllowTipSHA1InWant)
	return r
}

// watch names the references a ref depends on: full names, and prefixes
// ending in "/" for every reference under them. A commit pinned by its
// SHA-1 depends on none.
type watch []string

// watchOf is what ref depends on: its branch, tag or name, every tag for
// a semver range, HEAD (and the branch it names) for the default branch.
func watchOf(ref Ref) watch {
	switch {
	case ref.Commit != "":
		return nil
	case ref.Name != "":
		return watch{ref.Name}
	case ref.SemVer != "":
		return watch{"refs/tags/"}
	case ref.Tag != "":
		return watch{"refs/tags/" + ref.Tag}
	case ref.Branch != "":
		return watch{"refs/heads/" + ref.Branch}
	}
	return watch{"HEAD"}
}

// moved reports whether a reference w names differs between two looks:
// a remote that advertises other references (GitHub's refs/pull/*) moves
// only the consumers of those.
func (w watch) moved(before, after refs) bool {
	differs := func(name string) bool {
		return before.hashes[name] != after.hashes[name] || before.peeled[name] != after.peeled[name]
	}
	for _, name := range w {
		if prefix, ok := strings.CutSuffix(name, "/"); ok {
			for _, r := range []refs{before, after} {
				for n := range r.hashes {
					if strings.HasPrefix(n, prefix+"/") && differs(n) {
						return true
					}
				}
			}
			continue
		}
		if differs(name) || (name == "HEAD" && before.head != after.head) {
			return true
		}
	}
	return false
}

// target is the commit a ref resolves to, and how to fetch it.
type target struct {
	commit plumbing.Hash
	// refName is the reference resolved (refs/heads/main); empty for a
	// commit asked by its SHA-1 alone.
	refName string
	// tag is an annotated tag's object, when the ref is a tag.
	tag plumbing.Hash
	// tagName is the tag's short name.
	tagName string
	// revision names the commit as Flux does.
	revision string
	// history: the branch's history is fetched, to find the commit in it.
	history bool
}

// resolve finds the commit ref names in what a look saw.
func (r refs) resolve(url string, ref Ref) (target, error) {
	notFound := func() (target, error) {
		return target{}, &RefNotFoundError{URL: url, Ref: ref, Branches: r.names("refs/heads/"), Tags: r.tagsNewestFirst()}
	}
	switch {
	case ref.Commit != "":
		t := target{commit: plumbing.NewHash(ref.Commit), revision: "sha1:" + ref.Commit}
		if ref.Branch != "" {
			name := "refs/heads/" + ref.Branch
			if _, ok := r.hashes[name]; !ok {
				return notFound()
			}
			t.refName, t.revision, t.history = name, ref.Branch+"@sha1:"+ref.Commit, true
		}
		return t, nil
	case ref.Name != "":
		return r.named(ref.Name, strings.TrimPrefix(ref.Name, "refs/tags/"), notFound)
	case ref.SemVer != "":
		tag, ok := r.highestTag(ref.SemVer)
		if !ok {
			return notFound()
		}
		return r.named("refs/tags/"+tag, tag, notFound)
	case ref.Tag != "":
		return r.named("refs/tags/"+ref.Tag, ref.Tag, notFound)
	case ref.Branch != "":
		return r.named("refs/heads/"+ref.Branch, ref.Branch, notFound)
	}
	if r.head != "" {
		return r.named(r.head, strings.TrimPrefix(r.head, "refs/heads/"), notFound)
	}
	return r.named("HEAD", "HEAD", notFound)
}

// named resolves a full reference name; short names it in revisions.
func (r refs) named(name, short string, notFound func() (target, error)) (target, error) {
	hash, ok := r.hashes[name]
	if !ok {
		return notFound()
	}
	t := target{commit: hash, refName: name}
	if commit, annotated := r.peeled[name]; annotated {
		t.commit, t.tag = commit, hash
	}
	if strings.HasPrefix(name, "refs/tags/") {
		t.tagName = strings.TrimPrefix(name, "refs/tags/")
	}
	t.revision = short + "@sha1:" + t.commit.String()
	return t, nil
}

// highestTag is the highest tag that satisfies constraint.
func (r refs) highestTag(constraint string) (string, bool) {
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return "", false
	}
	best, bestVersion := "", (*semver.Version)(nil)
	for _, tag := range r.names("refs/tags/") {
		v, err := semver.NewVersion(tag)
		if err != nil || !c.Check(v) {
			continue
		}
		if bestVersion == nil || v.GreaterThan(bestVersion) || (v.Equal(bestVersion) && tag < best) {
			best, bestVersion = tag, v
		}
	}
	return best, bestVersion != nil
}

// names lists the short names of the references under prefix, sorted.
func (r refs) names(prefix string) []string {
	var out []string
	for name := range r.hashes {
		if short, ok := strings.CutPrefix(name, prefix); ok {
			out = append(out, short)
		}
	}
	sort.Strings(out)
	return out
}

// tagsNewestFirst lists the tags, semver tags highest first, then the
// others by name.
func (r refs) tagsNewestFirst() []string {
	tags := r.names("refs/tags/")
	version := func(tag string) *semver.Version {
		v, err := semver.NewVersion(tag)
		if err != nil {
			return nil
		}
		return v
	}
	slices.SortStableFunc(tags, func(a, b string) int {
		va, vb := version(a), version(b)
		switch {
		case va != nil && vb != nil:
			return vb.Compare(va)
		case va != nil:
			return -1
		case vb != nil:
			return 1
		}
		return strings.Compare(a, b)
	})
	return tags
}

// tipOf is a reference whose tip is commit, to fetch it by, or "".
func (r refs) tipOf(commit plumbing.Hash) string {
	for _, name := range slices.Sorted(maps.Keys(r.hashes)) {
		if r.hashes[name] == commit && name != "HEAD" {
			return name
		}
	}
	return ""
}
