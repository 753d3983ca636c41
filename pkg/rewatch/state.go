package rewatch

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Metrics on controller-runtime's registry.
var (
	lastEvent = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "wavekit_watch_last_event_timestamp_seconds",
		Help: "When a watch of the resource last delivered an event or a bookmark (Unix time); the API server sends a bookmark about every minute, so an age of minutes means a watch that delivers nothing.",
	}, []string{"cluster", "resource"})
	reconnects = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "wavekit_watch_reconnect_seconds",
		Help:    "How long a watch took, after it was lost (its API server went away, or answered its resource version too old), to deliver again: resumed from its resource version, or relisted in place.",
		Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300},
	}, []string{"cluster", "resource", "how"})
	lastReconnect = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "wavekit_watch_last_reconnect_seconds",
		Help: "How long the last reconnect of a watch of the resource took, from the moment it was lost until it delivered again (resumed or relisted in place).",
	}, []string{"cluster", "resource"})
	lostNow = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "wavekit_watches_lost",
		Help: "Watches of the cluster that were lost and are not back yet: their informers miss what changes meanwhile.",
	}, []string{"cluster"})
)

func init() {
	metrics.Registry.MustRegister(lastEvent, reconnects, lastReconnect, lostNow, newCachedObjects())
}

// How a lost watch came back.
const (
	howResumed  = "resumed"  // watched again from the last resource version it delivered
	howRelisted = "relisted" // listed again in place: its resource version was too old
)

// state is what one wrapped ListerWatcher tells of its watch: whether it is
// lost, since when, and when it last delivered.
type state struct {
	cluster, resource string
	delivered         prometheus.Gauge

	mu    sync.Mutex
	lost  time.Time        // zero while watching
	store toolscache.Store // the informer's, once SetStore gave it
}

// watches are the states of every wrapped ListerWatcher that has not
// stopped, for Lost.
var watches = struct {
	sync.Mutex
	all map[*state]bool
}{all: map[*state]bool{}}

func newState(cluster, resource string) *state {
	s := &state{cluster: cluster, resource: resource, delivered: lastEvent.WithLabelValues(cluster, resource)}
	watches.Lock()
	watches.all[s] = true
	watches.Unlock()
	return s
}

// delivering notes that the watch delivered an event.
func (s *state) delivering() { s.delivered.SetToCurrentTime() }

// lose notes that the watch is lost, unless it is already.
func (s *state) lose() {
	s.mu.Lock()
	first := s.lost.IsZero()
	if first {
		s.lost = time.Now()
	}
	s.mu.Unlock()
	if first {
		countLost(s.cluster)
	}
}

// found notes that the watch delivers again, how; it observes how long it
// was lost.
func (s *state) found(how string) {
	s.mu.Lock()
	since := s.lost
	s.lost = time.Time{}
	s.mu.Unlock()
	if since.IsZero() {
		return
	}
	took := time.Since(since).Seconds()
	reconnects.WithLabelValues(s.cluster, s.resource, how).Observe(took)
	lastReconnect.WithLabelValues(s.cluster, s.resource).Set(took)
	countLost(s.cluster)
}

// stop forgets the state: its informer stopped. The last of a cluster and
// resource takes its metrics along, so that a stopped watch (a target no
// component uses any more) does not read as a silent one.
func (s *state) stop() {
	watches.Lock()
	delete(watches.all, s)
	sameResource, sameCluster := false, false
	for other := range watches.all {
		sameCluster = sameCluster || other.cluster == s.cluster
		sameResource = sameResource || other.cluster == s.cluster && other.resource == s.resource
	}
	watches.Unlock()
	if !sameResource {
		lastEvent.DeleteLabelValues(s.cluster, s.resource)
		lastReconnect.DeleteLabelValues(s.cluster, s.resource)
	}
	if sameCluster {
		countLost(s.cluster)
	} else {
		lostNow.DeleteLabelValues(s.cluster)
	}
}

// countLost sets wavekit_watches_lost of cluster.
func countLost(cluster string) {
	lostNow.WithLabelValues(cluster).Set(float64(len(Lost(cluster))))
}

// LostWatch is a watch that was lost and is not back.
type LostWatch struct {
	// Resource is the watched resource, Kind.group.
	Resource string
	// Since is when it was lost.
	Since time.Time
}

// Lost returns the watches of cluster (a rest.Config's Host) that are lost
// now, the longest lost first.
func Lost(cluster string) []LostWatch {
	watches.Lock()
	defer watches.Unlock()
	var out []LostWatch
	for s := range watches.all {
		if s.cluster != cluster {
			continue
		}
		s.mu.Lock()
		if !s.lost.IsZero() {
			out = append(out, LostWatch{Resource: s.resource, Since: s.lost})
		}
		s.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b LostWatch) int { return a.Since.Compare(b.Since) })
	return out
}

// Ready returns a readiness check (controller-runtime's healthz.Checker)
// that fails while a watch of cluster is lost: its informer is behind what
// the API server holds until it delivers again.
func Ready(cluster string) func(*http.Request) error {
	return func(*http.Request) error {
		lost := Lost(cluster)
		if len(lost) == 0 {
			return nil
		}
		names := make([]string, 0, len(lost))
		for _, w := range lost {
			names = append(names, w.Resource)
		}
		return fmt.Errorf("%d watches of %s lost since %s, resyncing: %s", len(lost), cluster,
			lost[0].Since.UTC().Format(time.RFC3339), strings.Join(names, ", "))
	}
}
