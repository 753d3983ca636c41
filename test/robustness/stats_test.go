package robustness_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// stats are the figures of a run, for its report and docs/reliability.md.
type stats struct {
	mu       sync.Mutex
	counts   map[string]int
	converge []time.Duration
	// recovery are, by fault kind, the times from a fault's end until a
	// change made then was acted on (recovery_test.go).
	recovery map[string][]time.Duration
	ended    map[string]int
	rss      []string // one line per quiet point
	rssFirst int      // KiB, all replicas, after the first cycle
	rssLast  int
}

func newStats() *stats {
	return &stats{counts: map[string]int{}, recovery: map[string][]time.Duration{}, ended: map[string]int{}}
}

// faultsEnded counts a fault of kind that ended, and returns how many did.
func (s *stats) faultsEnded(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended[kind]++
	return s.ended[kind]
}

// recovered records how long after a fault of kind ended a change made
// then was acted on.
func (s *stats) recovered(kind string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recovery[kind] = append(s.recovery[kind], d)
}

// percentile is the p-th percentile (0-100) of sorted, the nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

func (s *stats) count(what string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[what] += n
}

func (s *stats) converged(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.converge = append(s.converge, d)
}

// sampleRSS records the replicas' resident memory at a quiet point.
func (s *stats) sampleRSS(cycle int, replicas []*replica) {
	total := 0
	var parts []string
	for _, rep := range replicas {
		kib := rep.rss()
		total += kib
		parts = append(parts, fmt.Sprintf("%s %d MiB", rep.name, kib/1024))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cycle == 1 {
		s.rssFirst = total
	}
	s.rssLast = total
	s.rss = append(s.rss, fmt.Sprintf("cycle %d: %d MiB (%s)", cycle, total/1024, strings.Join(parts, ", ")))
}

// report is the run's figures in words.
func (s *stats) report(seed int64, elapsed time.Duration) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "soak %s, %s\n", elapsed.Round(time.Second), seedText(seed))
	keys := make([]string, 0, len(s.counts))
	for k := range s.counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-32s %d\n", k, s.counts[k])
	}
	if len(s.converge) > 0 {
		sorted := slices.Clone(s.converge)
		slices.Sort(sorted)
		fmt.Fprintf(&b, "  convergence after the faults stopped: median %s, max %s over %d quiet points\n",
			sorted[len(sorted)/2].Round(100*time.Millisecond), sorted[len(sorted)-1].Round(100*time.Millisecond), len(sorted))
	}
	if len(s.recovery) > 0 {
		fmt.Fprintf(&b, "  recovery, from a fault's end until a change made then was acted on:\n")
		kinds := make([]string, 0, len(s.recovery))
		for kind := range s.recovery {
			kinds = append(kinds, kind)
		}
		sort.Strings(kinds)
		for _, kind := range kinds {
			sorted := slices.Clone(s.recovery[kind])
			slices.Sort(sorted)
			fmt.Fprintf(&b, "    %-20s median %s, p99 %s, max %s over %d (bound %s)\n", kind, sorted[len(sorted)/2].Round(time.Millisecond),
				percentile(sorted, 99).Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond), len(sorted), boundOf(kind))
		}
	}
	fmt.Fprintf(&b, "  operators' RSS: %d MiB after the first cycle, %d MiB at the end\n", s.rssFirst/1024, s.rssLast/1024)
	for _, line := range s.rss {
		fmt.Fprintf(&b, "    %s\n", line)
	}
	return b.String()
}
