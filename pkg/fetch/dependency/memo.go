package dependency

import (
	"os"
	"sync"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"k8s.io/utils/lru"
)

const (
	// memoEntries bounds the resolutions and names remembered.
	memoEntries = 4096
	// loadedEntries bounds the charts kept loaded in memory.
	loadedEntries = 128
)

// memo remembers values by key for as long as the asker allows, the
// least recently used going first beyond its bound.
type memo[V any] struct {
	entries *lru.Cache
}

type memoEntry[V any] struct {
	value V
	at    time.Time
}

func newMemo[V any](size int) *memo[V] {
	return &memo[V]{entries: lru.New(size)}
}

// get returns the value under key if it is younger than maxAge.
func (m *memo[V]) get(key string, maxAge time.Duration) (V, bool) {
	var zero V
	e, ok := m.entries.Get(key)
	if !ok {
		return zero, false
	}
	entry := e.(memoEntry[V])
	if time.Since(entry.at) >= maxAge {
		return zero, false
	}
	return entry.value, true
}

func (m *memo[V]) put(key string, v V) {
	m.entries.Add(key, memoEntry[V]{value: v, at: time.Now()})
}

// resolution is what a remote dependency resolved to, and where the
// cache holds its chart.
type resolution struct {
	resolved Resolved
	dir      string
}

// nameLookup is what a repository name maps to.
type nameLookup struct {
	url   string
	found bool
}

// loadedCharts keeps charts loaded from the fetch cache, by digest.
type loadedCharts struct {
	mu     sync.Mutex
	charts *lru.Cache
}

func newLoadedCharts(size int) *loadedCharts {
	return &loadedCharts{charts: lru.New(size)}
}

// load returns the chart of digest, loaded from dir unless it is loaded
// already; ok is false when it is not loaded and dir is gone (the cache
// evicted it).
func (l *loadedCharts) load(digest, dir string) (*chart.Chart, bool, error) {
	if c, ok := l.charts.Get(digest); ok {
		return c.(*chart.Chart), true, nil
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, false, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.charts.Get(digest); ok {
		return c.(*chart.Chart), true, nil
	}
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, false, err
	}
	l.charts.Add(digest, ch)
	return ch, true, nil
}
