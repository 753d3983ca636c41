package fetch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Cache holds fetched sources on disk, one directory per digest (and kind
// of source: chart or artifact), and evicts the least recently used
// entries once it holds more than maxBytes.
//
// An entry is built in a temporary directory inside the cache directory and
// renamed into place, so an entry that exists is complete; what a crash
// leaves behind is removed by the next NewCache. One process uses a cache
// directory at a time.
type Cache struct {
	dir      string
	maxBytes int64
	flights  singleflight.Group

	mu      sync.Mutex
	entries map[string]*cacheItem // by directory name
	bytes   int64
	clock   uint64 // ticks at every use, to order entries by last use
}

// entryKey names a cache entry: the kind of source and its digest. A chart
// archive fetched as an artifact is extracted differently from the chart,
// so the kinds do not share entries.
type entryKey struct {
	kind   string
	digest digest
}

const (
	chartKind    = "chart"
	artifactKind = "artifact"
)

// dirName is the name of the entry's directory: <kind>-<algorithm>-<hex>.
func (k entryKey) dirName() string {
	return k.kind + "-" + k.digest.algorithm + "-" + k.digest.hex
}

// isEntryName reports whether name is that of an entry's directory.
func isEntryName(name string) bool {
	kind, rest, _ := strings.Cut(name, "-")
	algorithm, hexDigits, _ := strings.Cut(rest, "-")
	d, err := parseDigest(algorithm + ":" + hexDigits)
	return (kind == chartKind || kind == artifactKind || kind == TreeKind) && err == nil && d.hex == hexDigits
}

// cacheItem is what the Cache knows of an entry without reading the disk.
type cacheItem struct {
	size int64
	used uint64
}

// entry is one source in the cache: the directory named after its digest.
type entry struct {
	dir  string
	meta entryMeta
}

// entryMeta is an entry's meta.json: what was downloaded, from where, and
// where in the entry its content is.
type entryMeta struct {
	URL      string `json:"url"`
	Revision string `json:"revision,omitempty"`
	Digest   string `json:"digest"`
	// Root is the content directory, relative to the entry.
	Root string `json:"root"`
	// Extra is what a tree's filler keeps beside it (Tree.Extra).
	Extra map[string]string `json:"extra,omitempty"`
}

// root is the directory the entry's content starts at.
func (e entry) root() string { return filepath.Join(e.dir, filepath.FromSlash(e.meta.Root)) }

const (
	metaFile    = "meta.json"
	contentDir  = "content"
	tempPrefix  = ".tmp-"
	trashPrefix = ".trash-"
)

// NewCache opens (creating it if needed) the cache in dir, which may hold
// at most maxBytes. Entries from an earlier process are kept, and their
// order of last use too.
func NewCache(dir string, maxBytes int64) (*Cache, error) {
	if maxBytes <= 0 {
		return nil, fmt.Errorf("cache %s: the size bound must be positive, not %d", dir, maxBytes)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating cache %s: %w", dir, err)
	}
	c := &Cache{dir: dir, maxBytes: maxBytes, entries: map[string]*cacheItem{}}
	if err := c.load(); err != nil {
		return nil, fmt.Errorf("opening cache %s: %w", dir, err)
	}
	return c, nil
}

// Stats says how many entries the cache holds and their size in bytes.
func (c *Cache) Stats() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.bytes
}

// load registers the entries on disk, ordered by last use: the
// modification time of their meta.json.
func (c *Cache) load() error {
	found, err := c.scan()
	if err != nil {
		return err
	}
	sort.Slice(found, func(i, j int) bool { return found[i].used.Before(found[j].used) })
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range found {
		c.clock++
		c.entries[f.name] = &cacheItem{size: f.size, used: c.clock}
		c.bytes += f.size
	}
	c.evict("")
	return nil
}

// foundEntry is an entry scan found on disk.
type foundEntry struct {
	name string
	size int64
	used time.Time
}

// scan removes what a crash left behind and returns the entries on disk.
func (c *Cache) scan() ([]foundEntry, error) {
	dirEntries, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, err
	}
	var found []foundEntry
	for _, de := range dirEntries {
		name, path := de.Name(), filepath.Join(c.dir, de.Name())
		if strings.HasPrefix(name, tempPrefix) || strings.HasPrefix(name, trashPrefix) {
			if err := os.RemoveAll(path); err != nil {
				return nil, err
			}
			continue
		}
		if !isEntryName(name) || !de.IsDir() {
			continue // not ours
		}
		info, err := os.Stat(filepath.Join(path, metaFile))
		if errors.Is(err, fs.ErrNotExist) { // not made by this package: damaged
			c.remove(name)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", name, err)
		}
		size, err := dirSize(path)
		if err != nil {
			return nil, err
		}
		found = append(found, foundEntry{name, size, info.ModTime()})
	}
	return found, nil
}

// lookup returns the entry for k and marks it used, or false if the cache
// does not hold it.
func (c *Cache) lookup(k entryKey) (entry, bool) {
	name := k.dirName()
	c.mu.Lock()
	item, ok := c.entries[name]
	if ok {
		c.clock++
		item.used = c.clock
	}
	c.mu.Unlock()
	if !ok {
		return entry{}, false
	}
	e, err := c.read(name)
	if err != nil { // removed behind the cache's back
		c.mu.Lock()
		c.drop(name)
		c.mu.Unlock()
		return entry{}, false
	}
	now := time.Now() // for the order of use in the next process
	_ = os.Chtimes(filepath.Join(e.dir, metaFile), now, now)
	return e, true
}

// read reads the entry named name from disk.
func (c *Cache) read(name string) (entry, error) {
	dir := filepath.Join(c.dir, name)
	data, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return entry{}, err
	}
	e := entry{dir: dir}
	if err := json.Unmarshal(data, &e.meta); err != nil {
		return entry{}, fmt.Errorf("%s: %w", filepath.Join(dir, metaFile), err)
	}
	return e, nil
}

// store returns the entry for k, having fill build it if the cache does not
// hold it yet. fill writes the content into the temporary directory it is
// given and says what it wrote; concurrent calls for one key share one
// fill. A failed fill leaves nothing behind.
func (c *Cache) store(k entryKey, fill func(tmp string) (entryMeta, error)) (entry, error) {
	v, err, _ := c.flights.Do(k.dirName(), func() (any, error) {
		if e, ok := c.lookup(k); ok {
			return e, nil
		}
		return c.build(k, fill)
	})
	if err != nil {
		return entry{}, err
	}
	return v.(entry), nil
}

// build runs fill in a temporary directory, writes meta.json and renames
// the directory into place.
func (c *Cache) build(k entryKey, fill func(tmp string) (entryMeta, error)) (entry, error) {
	tmp, err := os.MkdirTemp(c.dir, tempPrefix)
	if err != nil {
		return entry{}, fmt.Errorf("cache %s: %w", c.dir, err)
	}
	defer os.RemoveAll(tmp) // after a failure; after the rename it is gone
	meta, err := fill(tmp)
	if err != nil {
		return entry{}, err
	}
	if err := writeMeta(tmp, meta); err != nil {
		return entry{}, fmt.Errorf("cache %s: %w", c.dir, err)
	}
	size, err := dirSize(tmp)
	if err != nil {
		return entry{}, fmt.Errorf("cache %s: %w", c.dir, err)
	}
	final := filepath.Join(c.dir, k.dirName())
	if err := os.RemoveAll(final); err != nil { // a damaged entry lookup gave up on
		return entry{}, fmt.Errorf("cache %s: %w", c.dir, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return entry{}, fmt.Errorf("cache %s: moving %s into place: %w", c.dir, k.dirName(), err)
	}
	c.add(k.dirName(), size)
	return entry{dir: final, meta: meta}, nil
}

func writeMeta(dir string, meta entryMeta) error {
	data, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, metaFile), data, 0o644)
}

// add registers a new entry as the most recently used and evicts others
// if the cache is now too large.
func (c *Cache) add(name string, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(name)
	c.clock++
	c.entries[name] = &cacheItem{size: size, used: c.clock}
	c.bytes += size
	c.evict(name)
}

// evict removes the least recently used entries, never keep, until the
// cache holds at most maxBytes. The caller holds c.mu.
func (c *Cache) evict(keep string) {
	for c.bytes > c.maxBytes {
		victim := ""
		for name, item := range c.entries {
			if name != keep && (victim == "" || item.used < c.entries[victim].used) {
				victim = name
			}
		}
		if victim == "" {
			return
		}
		c.drop(victim)
		c.remove(victim)
	}
}

// drop forgets an entry. The caller holds c.mu.
func (c *Cache) drop(name string) {
	if item, ok := c.entries[name]; ok {
		c.bytes -= item.size
		delete(c.entries, name)
	}
}

// remove deletes an entry's directory: first it moves it aside, so that a
// half-deleted entry never looks present.
func (c *Cache) remove(name string) {
	path := filepath.Join(c.dir, name)
	trash := filepath.Join(c.dir, trashPrefix+name)
	if err := os.Rename(path, trash); err == nil {
		path = trash
	}
	_ = os.RemoveAll(path) // what remains goes at the next NewCache
}

// tempFile creates a temporary file in the cache directory, for downloads
// that are not part of an entry.
func (c *Cache) tempFile(pattern string) (*os.File, error) {
	return os.CreateTemp(c.dir, tempPrefix+pattern)
}

// dirSize adds up the sizes of everything under dir.
func dirSize(dir string) (int64, error) {
	var size int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !d.IsDir() {
			size += info.Size()
		}
		return nil
	})
	return size, err
}
