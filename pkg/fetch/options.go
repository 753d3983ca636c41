package fetch

import (
	"net/http"
	"time"
)

const (
	// DefaultTimeout bounds each download: an index, a tag list, a chart,
	// an artifact.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxSize bounds each download and each artifact's extracted
	// content.
	DefaultMaxSize int64 = 256 << 20
)

// Option configures a Fetcher.
type Option func(*Fetcher)

// WithHTTPClient makes the Fetcher use c for repositories, registries and
// artifacts. For Credentials.CA to work, c.Transport must be nil or an
// *http.Transport.
func WithHTTPClient(c *http.Client) Option {
	return func(f *Fetcher) { f.client = c }
}

// WithTimeout bounds each download (default DefaultTimeout): an index, a
// tag list, a chart, an artifact, each including its body.
func WithTimeout(d time.Duration) Option {
	return func(f *Fetcher) { f.timeout = d }
}

// WithMaxSize bounds each download and each artifact's extracted content
// (default DefaultMaxSize).
func WithMaxSize(n int64) Option {
	return func(f *Fetcher) { f.maxSize = n }
}
