package fetch

import (
	"fmt"
	"os"
	"path/filepath"
)

// TreeKind is the kind of cache entry that holds a tree checked out of a
// Git repository (package git): such entries share the cache's size bound
// with charts and artifacts.
const TreeKind = "git"

// Tree is a cache entry of kind TreeKind: the directory its content is in
// and what its filler said of it.
type Tree struct {
	// Dir is the entry's content directory.
	Dir string
	// URL, Revision and Digest are what the filler returned.
	URL, Revision, Digest string
	// Extra is what else the filler keeps with the tree (small values: it
	// is read with every lookup).
	Extra map[string]string
}

// LookupTree returns the tree the cache holds under key ("sha256:<hex>",
// a digest of what the tree was checked out from), marking it used, or
// false when it holds none.
func (c *Cache) LookupTree(key string) (Tree, bool) {
	d, err := parseDigest(key)
	if err != nil {
		return Tree{}, false
	}
	e, ok := c.lookup(entryKey{TreeKind, d})
	if !ok {
		return Tree{}, false
	}
	return treeOf(e), true
}

// StoreTree returns the tree the cache holds under key, having fill write
// it into the empty directory it is given when the cache holds none:
// concurrent calls for one key share one fill, and a failed fill leaves
// nothing behind. fill returns the URL, revision and digest to keep with
// the tree (its Dir is ignored).
func (c *Cache) StoreTree(key string, fill func(dir string) (Tree, error)) (Tree, error) {
	d, err := parseDigest(key)
	if err != nil {
		return Tree{}, fmt.Errorf("tree key: %w", err)
	}
	e, err := c.store(entryKey{TreeKind, d}, func(tmp string) (entryMeta, error) {
		t, err := fill(filepath.Join(tmp, contentDir))
		if err != nil {
			return entryMeta{}, err
		}
		return entryMeta{URL: t.URL, Revision: t.Revision, Digest: t.Digest, Root: contentDir, Extra: t.Extra}, nil
	})
	if err != nil {
		return Tree{}, err
	}
	return treeOf(e), nil
}

// TempDir makes a directory inside the cache directory for work that is
// not an entry (a repository being fetched); what a crash leaves of it is
// removed when the next process opens the cache. The caller removes it.
func (c *Cache) TempDir(pattern string) (string, error) {
	return os.MkdirTemp(c.dir, tempPrefix+pattern)
}

func treeOf(e entry) Tree {
	return Tree{Dir: e.root(), URL: e.meta.URL, Revision: e.meta.Revision, Digest: e.meta.Digest, Extra: e.meta.Extra}
}
