package httpcount

import (
	"net/http"
	"strings"
	"sync"
)

// Counter counts requests by path. It is safe for concurrent use.
type Counter struct {
	mu     sync.Mutex
	byPath map[string]int
}

// New returns a Counter with no request counted.
func New() *Counter { return &Counter{byPath: map[string]int{}} }

// Wrap returns h, counting each request it answers.
func (c *Counter) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.byPath[r.URL.Path]++
		c.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// Count returns how many requests had a path that contains part ("" for
// all of them).
func (c *Counter) Count(part string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for p, k := range c.byPath {
		if strings.Contains(p, part) {
			n += k
		}
	}
	return n
}

// Reset forgets every request counted.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byPath = map[string]int{}
}
