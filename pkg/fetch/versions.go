package fetch

import (
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"helm.sh/helm/v3/pkg/repo"
)

// versions is what a repository offers for a chart, as of one look at it:
// its index.yaml, or for an OCI registry its tags made into an index; and
// what the Fetcher learned since about the versions it fetched.
type versions struct {
	index   *repo.IndexFile
	fetched time.Time

	mu sync.Mutex
	// pins holds the manifest digest an OCI tag was resolved to, the key
	// of its chart in the cache. They are as old as the tags, and go
	// with them.
	pins map[string]digest
}

func (v *versions) pinned(version string) (digest, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	d, ok := v.pins[version]
	return d, ok
}

func (v *versions) pin(version string, d digest) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.pins[version] = d
}

// versionCache keeps the last look at each repository, in memory.
type versionCache struct {
	flights singleflight.Group

	mu    sync.Mutex
	byKey map[string]*versions // by sourceKey
}

// get returns the versions under key if they were fetched less than maxAge
// ago; otherwise load fetches them, once for concurrent callers, and they
// replace the old.
func (c *versionCache) get(key string, maxAge time.Duration, load func() (*repo.IndexFile, error)) (*versions, error) {
	c.mu.Lock()
	v := c.byKey[key]
	c.mu.Unlock()
	if v != nil && time.Since(v.fetched) < maxAge {
		return v, nil
	}
	fresh, err, _ := c.flights.Do(key, func() (any, error) {
		index, err := load()
		if err != nil {
			return nil, err
		}
		v := &versions{index: index, fetched: time.Now(), pins: map[string]digest{}}
		c.mu.Lock()
		c.byKey[key] = v
		c.mu.Unlock()
		return v, nil
	})
	if err != nil {
		return nil, err
	}
	return fresh.(*versions), nil
}
