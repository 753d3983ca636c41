package pullrequests

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// RateLimitedError says a host's API rate limit is spent: nothing is sent
// to it until Until.
type RateLimitedError struct {
	Host  string
	Until time.Time
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("the API of %s is rate limited until %s: nothing is sent to it before", e.Host, e.Until.UTC().Format(time.RFC3339))
}

// waitingFor returns a *RateLimitedError while host's limit is spent.
func (s *Source) waitingFor(host string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if until, ok := s.limited[host]; ok {
		if s.now().Before(until) {
			return &RateLimitedError{Host: host, Until: until}
		}
		delete(s.limited, host)
	}
	return nil
}

// noteLimit records when host's limit resets if resp says it is spent.
func (s *Source) noteLimit(host string, resp *http.Response) {
	until, spent := resetOf(resp, s.now())
	if !spent {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited[host] = until
}

// resetOf reads, from resp's headers, whether the limit is spent and when it
// resets: X-RateLimit-Remaining and -Reset (GitHub, Gitea), RateLimit-
// (GitLab), or Retry-After on a 403 or 429 (seconds, or an HTTP date).
func resetOf(resp *http.Response, now time.Time) (time.Time, bool) {
	h := resp.Header
	for _, prefix := range []string{"X-RateLimit-", "RateLimit-"} {
		if h.Get(prefix+"Remaining") != "0" {
			continue
		}
		if reset, err := strconv.ParseInt(h.Get(prefix+"Reset"), 10, 64); err == nil {
			return time.Unix(reset, 0), true
		}
		return now.Add(time.Minute), true
	}
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return time.Time{}, false
	}
	if after := h.Get("Retry-After"); after != "" {
		if seconds, err := strconv.Atoi(after); err == nil {
			return now.Add(time.Duration(seconds) * time.Second), true
		}
		if at, err := http.ParseTime(after); err == nil {
			return at, true
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return now.Add(time.Minute), true
	}
	return time.Time{}, false
}
