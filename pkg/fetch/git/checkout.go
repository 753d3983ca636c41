package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// maxLinkHops bounds the symbolic links one path may go through, as the
// kernel does.
const maxLinkHops = 40

// checkout writes a commit's tree into a directory, as far as the request
// asks (sparse paths, ignore rules, submodules), with bounds on bytes and
// files, and computes the digest of what it wrote. It writes no .git: only
// the files.
type checkout struct {
	root     string
	url      string
	commit   string
	sparse   []string
	ignore   gitignore.Matcher
	maxBytes int64
	maxFiles int
	// submodule fetches a submodule's commit and returns its storage and
	// commit; nil leaves submodules as empty directories, as git does
	// without --recurse-submodules.
	submodule func(ctx context.Context, at, url string, commit plumbing.Hash) (storer.EncodedObjectStorer, *object.Commit, error)

	written int64
	files   int
	sum     hash.Hash
	links   map[string]string // path → target, created last
	modules map[string]string // submodule path → URL, from each repository's .gitmodules
}

func newCheckout(root, url, commit string, co Checkout, maxBytes int64, maxFiles int) *checkout {
	c := &checkout{root: root, url: url, commit: commit, maxBytes: maxBytes, maxFiles: maxFiles, sum: sha256.New(), links: map[string]string{}, modules: map[string]string{}}
	for _, p := range co.SparsePaths {
		clean, _ := cleanRelative(p) // validated with the request
		c.sparse = append(c.sparse, clean)
	}
	var patterns []gitignore.Pattern
	for _, line := range strings.Split(co.Ignore, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		patterns = append(patterns, gitignore.ParsePattern(line, nil))
	}
	c.ignore = gitignore.NewMatcher(patterns)
	return c
}

// write writes the commit's tree, then the links, and returns the digest.
func (c *checkout) write(ctx context.Context, st storer.EncodedObjectStorer, commit *object.Commit) (string, error) {
	if err := os.MkdirAll(c.root, 0o755); err != nil {
		return "", err
	}
	tree, err := commit.Tree()
	if err != nil {
		return "", fmt.Errorf("reading the tree of %s: %w", commit.Hash, err)
	}
	if err := c.readModules(tree, ""); err != nil {
		return "", err
	}
	if err := c.walk(ctx, st, tree, "", 0); err != nil {
		return "", err
	}
	if err := c.createLinks(); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(c.sum.Sum(nil)), nil
}

// maxSubmoduleDepth bounds submodules within submodules.
const maxSubmoduleDepth = 5

// walk writes tree at prefix (a slash path, "" for the root).
func (c *checkout) walk(ctx context.Context, st storer.EncodedObjectStorer, tree *object.Tree, prefix string, depth int) error {
	for _, e := range tree.Entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.checkName(prefix, e.Name); err != nil {
			return err
		}
		p := path.Join(prefix, e.Name)
		isDir := e.Mode == filemode.Dir || e.Mode == filemode.Submodule
		if c.ignore.Match(strings.Split(p, "/"), isDir) || !c.wanted(p, isDir) {
			continue
		}
		var err error
		switch e.Mode {
		case filemode.Dir:
			err = c.dir(ctx, st, e.Hash, p, depth)
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			err = c.file(st, e, p)
		case filemode.Symlink:
			err = c.link(st, e, p)
		case filemode.Submodule:
			err = c.module(ctx, p, e.Hash, depth)
		default:
			err = c.unsafe(p, fmt.Sprintf("unknown file mode %s", e.Mode))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *checkout) dir(ctx context.Context, st storer.EncodedObjectStorer, h plumbing.Hash, p string, depth int) error {
	sub, err := object.GetTree(st, h)
	if err != nil {
		return fmt.Errorf("reading the tree of %s: %w", p, err)
	}
	if err := os.MkdirAll(c.path(p), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(c.sum, "%s\x00dir\x00", p)
	return c.walk(ctx, st, sub, p, depth)
}

// file writes a blob, counting its bytes against the bound.
func (c *checkout) file(st storer.EncodedObjectStorer, e object.TreeEntry, p string) error {
	if err := c.count(); err != nil {
		return err
	}
	if sized, ok := st.(objectSizer); ok {
		// Known from the pack's index, before the blob is read at all.
		size, err := sized.EncodedObjectSize(e.Hash)
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		if c.written+size > c.maxBytes {
			return &fetch.SizeLimitError{URL: c.url, What: "checked-out tree", Limit: c.maxBytes}
		}
	}
	blob, err := object.GetBlob(st, e.Hash)
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	if c.written+blob.Size > c.maxBytes {
		return &fetch.SizeLimitError{URL: c.url, What: "checked-out tree", Limit: c.maxBytes}
	}
	mode := os.FileMode(0o644)
	if e.Mode == filemode.Executable {
		mode = 0o755
	}
	r, err := blob.Reader()
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	defer r.Close()
	f, err := os.OpenFile(c.path(p), os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.sum, "%s\x00%o\x00%d\x00", p, mode, blob.Size)
	n, err := io.Copy(io.MultiWriter(f, c.sum), io.LimitReader(r, blob.Size))
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	c.written += n
	if err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}

// objectSizer tells an object's size without reading it (go-git's
// storage on disk does, from the pack).
type objectSizer interface {
	EncodedObjectSize(plumbing.Hash) (int64, error)
}

// link records a symbolic link, created once every file is written.
func (c *checkout) link(st storer.EncodedObjectStorer, e object.TreeEntry, p string) error {
	if err := c.count(); err != nil {
		return err
	}
	blob, err := object.GetBlob(st, e.Hash)
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	if blob.Size > 4096 {
		return c.unsafe(p, "a symbolic link's target longer than 4096 bytes")
	}
	r, err := blob.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	target, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	c.links[p] = string(target)
	fmt.Fprintf(c.sum, "%s\x00link\x00%s\x00", p, target)
	return nil
}

// createLinks creates the links, each of which must lead inside the tree,
// whichever links it goes through.
func (c *checkout) createLinks() error {
	for p, target := range c.links {
		if strings.HasPrefix(target, "/") || !c.inside(path.Dir(p)+"/"+target) {
			return c.unsafe(p, fmt.Sprintf("a symbolic link to %s, outside the repository", target))
		}
	}
	for p, target := range c.links {
		if err := os.Symlink(filepath.FromSlash(target), c.path(p)); err != nil {
			return err
		}
	}
	return nil
}

// inside resolves p, a path not cleaned (a "sub/.." must go through the
// link sub), through the tree's links and reports whether it stays inside
// the tree; a link in its way is followed from where it is.
func (c *checkout) inside(p string) bool {
	queue := strings.Split(p, "/")
	var at []string
	hops := 0
	for len(queue) > 0 {
		part := queue[0]
		queue = queue[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if len(at) == 0 {
				return false
			}
			at = at[:len(at)-1]
			continue
		}
		next := strings.Join(append(append([]string(nil), at...), part), "/")
		if target, isLink := c.links[next]; isLink {
			if hops++; hops > maxLinkHops || strings.HasPrefix(target, "/") {
				return false
			}
			queue = append(strings.Split(target, "/"), queue...)
			continue
		}
		at = append(at, part)
	}
	return true
}

// module writes a submodule's tree at p, or an empty directory when
// submodules are not asked for.
func (c *checkout) module(ctx context.Context, p string, commit plumbing.Hash, depth int) error {
	if err := os.MkdirAll(c.path(p), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(c.sum, "%s\x00module\x00%s\x00", p, commit)
	if c.submodule == nil {
		return nil
	}
	if depth >= maxSubmoduleDepth {
		return &SubmoduleError{Path: p, Err: fmt.Errorf("more than %d submodules within each other", maxSubmoduleDepth)}
	}
	url, ok := c.modules[p]
	if !ok {
		return &SubmoduleError{Path: p, Err: fmt.Errorf("the tree records a submodule at %s but .gitmodules gives it no URL", p)}
	}
	st, sub, err := c.submodule(ctx, p, url, commit)
	if err != nil {
		return &SubmoduleError{Path: p, Err: err}
	}
	tree, err := sub.Tree()
	if err == nil {
		err = c.readModules(tree, p)
	}
	if err != nil {
		return &SubmoduleError{Path: p, Err: err}
	}
	return c.walk(ctx, st, tree, p, depth+1)
}

// readModules reads the .gitmodules of a repository's root tree, checked
// out at base: submodule path → URL. The tree's own submodule entries say
// which submodules there are; an entry of .gitmodules whose path holds
// none is never used (git ignores such stale entries, go-git's submodule
// code fails on them).
func (c *checkout) readModules(tree *object.Tree, base string) error {
	f, err := tree.File(".gitmodules")
	if err != nil {
		return nil // no submodules, or none described
	}
	content, err := f.Contents()
	if err != nil {
		return fmt.Errorf("reading .gitmodules: %w", err)
	}
	modules := config.NewModules()
	if err := modules.Unmarshal([]byte(content)); err != nil {
		return fmt.Errorf("reading .gitmodules: %w", err)
	}
	for _, m := range modules.Submodules {
		if clean, err := cleanRelative(m.Path); err == nil && m.URL != "" {
			c.modules[path.Join(base, clean)] = m.URL
		}
	}
	return nil
}

func (c *checkout) count() error {
	c.files++
	if c.files > c.maxFiles {
		return &fetch.SizeLimitError{URL: c.url, What: fmt.Sprintf("checked-out tree (%d files)", c.maxFiles), Limit: c.maxBytes}
	}
	return nil
}

// wanted reports whether p is written: everything without sparse paths;
// else what is in one of them, and the directories that lead to one.
func (c *checkout) wanted(p string, isDir bool) bool {
	if len(c.sparse) == 0 {
		return true
	}
	for _, s := range c.sparse {
		if p == s || strings.HasPrefix(p, s+"/") || (isDir && strings.HasPrefix(s, p+"/")) {
			return true
		}
	}
	return false
}

// checkName refuses a tree entry name that would leave its directory or
// write into a .git directory: no git makes them, a hostile server might.
func (c *checkout) checkName(prefix, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") || strings.EqualFold(name, ".git") {
		return c.unsafe(path.Join(prefix, name), "an entry name git never writes")
	}
	return nil
}

func (c *checkout) path(p string) string { return filepath.Join(c.root, filepath.FromSlash(p)) }

func (c *checkout) unsafe(p, reason string) error {
	return &UnsafeTreeError{URL: c.url, Commit: c.commit, Path: p, Reason: reason}
}
