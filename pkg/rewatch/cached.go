package rewatch

import (
	"github.com/prometheus/client_golang/prometheus"
	toolscache "k8s.io/client-go/tools/cache"
)

// cachedObjects is wavekit_cached_objects: at each scrape, the objects the
// stores of the informers Informers made hold, summed by cluster and
// resource. It makes a cache's label selection visible: a shard's
// replica holds its own shard's objects only.
type cachedObjects struct{ desc *prometheus.Desc }

func newCachedObjects() cachedObjects {
	return cachedObjects{desc: prometheus.NewDesc("wavekit_cached_objects",
		"Objects the informer caches of the process hold now, by cluster and resource: a shard's replica holds only the objects of its shard (and, of the Components of other shards, what its dependencies need).",
		[]string{"cluster", "resource"}, nil)}
}

func (c cachedObjects) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c cachedObjects) Collect(ch chan<- prometheus.Metric) {
	type key struct{ cluster, resource string }
	counts := map[key]int{}
	watches.Lock()
	for s := range watches.all {
		if store := s.cache(); store != nil {
			counts[key{s.cluster, s.resource}] += len(store.ListKeys())
		}
	}
	watches.Unlock()
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), k.cluster, k.resource)
	}
}

// setCache gives s the store of its informer, which wavekit_cached_objects
// counts.
func (s *state) setCache(store toolscache.Store) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store = store
}

func (s *state) cache() toolscache.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store
}
