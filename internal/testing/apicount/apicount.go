package apicount

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/pkg/apirequest"
)

// Counter counts requests; the zero value is not usable, see New.
type Counter struct {
	mu        sync.Mutex
	counts    map[string]int // "verb resource" → n
	conflicts map[string]int // "verb resource" → n answered 409 Conflict, counted in counts too
	dryRuns   int            // writes sent with dryRun=All, counted in counts too
}

// New returns an empty counter.
func New() *Counter { return &Counter{counts: map[string]int{}, conflicts: map[string]int{}} }

// Wrap returns a copy of cfg whose requests are counted.
func (c *Counter) Wrap(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper{next: rt, counter: c}
	})
	return out
}

type roundTripper struct {
	next    http.RoundTripper
	counter *Counter
}

func (r roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	verb, resource := apirequest.Verb(req), apirequest.Resource(req.URL.Path)
	r.counter.add(verb, resource, req.URL.Query().Get("dryRun") == "All")
	resp, err := r.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusConflict {
		r.counter.conflicted(verb, resource)
	}
	return resp, err
}

func (c *Counter) conflicted(verb, resource string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conflicts[verb+" "+resource]++
}

// Conflicts counts the requests of one verb and resource that the API
// server answered with 409 Conflict (a write based on a stale
// resourceVersion); Count minus Conflicts is what the server accepted.
func (c *Counter) Conflicts(verb, resource string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conflicts[verb+" "+resource]
}

func (c *Counter) add(verb, resource string, dryRun bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[verb+" "+resource]++
	if dryRun && IsWrite(verb) {
		c.dryRuns++
	}
}

// DryRuns counts the writes sent as server-side dry runs (dryRun=All):
// Writes() minus DryRuns() is what changed the cluster.
func (c *Counter) DryRuns() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dryRuns
}

// Reset forgets every count.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts, c.conflicts, c.dryRuns = map[string]int{}, map[string]int{}, 0
}

// Snapshot returns the counts by "verb resource".
func (c *Counter) Snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// Verbs returns the counts by verb only.
func (c *Counter) Verbs() map[string]int {
	out := map[string]int{}
	for k, v := range c.Snapshot() {
		out[strings.SplitN(k, " ", 2)[0]] += v
	}
	return out
}

// Writes counts create, update, patch, apply and delete requests.
func (c *Counter) Writes() int {
	n := 0
	for verb, v := range c.Verbs() {
		if IsWrite(verb) {
			n += v
		}
	}
	return n
}

// Count returns the requests of one verb (and, if given, one resource).
func (c *Counter) Count(verb string, resource ...string) int {
	if len(resource) == 0 {
		return c.Verbs()[verb]
	}
	return c.Snapshot()[verb+" "+resource[0]]
}

// String lists the counts, sorted, one "verb resource=n" per entry.
func (c *Counter) String() string {
	snap := c.Snapshot()
	keys := make([]string, 0, len(snap))
	for k := range snap {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, snap[k]))
	}
	return strings.Join(parts, " ")
}

// IsWrite tells whether a verb changes state.
func IsWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "apply", "delete", "deletecollection":
		return true
	}
	return false
}
