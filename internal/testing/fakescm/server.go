package fakescm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PR is a pull request (a merge request on GitLab).
type PR struct {
	Number int      `json:"number"`
	Branch string   `json:"branch"`
	Target string   `json:"target"`
	Head   string   `json:"head"`
	Title  string   `json:"title"`
	Author string   `json:"author"`
	Labels []string `json:"labels"`
	closed bool
}

// Request is one request the server answered.
type Request struct {
	Method, Path string
	Status       int
	// Authorized: it carried a token (Authorization or PRIVATE-TOKEN).
	Authorized bool
	// Conditional: it carried If-None-Match.
	Conditional bool
}

// Server serves the listings; its URL is the API's base URL for each
// provider. Close it when done.
type Server struct {
	*httptest.Server
	mu        sync.Mutex
	repos     map[string][]*PR // by owner/repo
	token     string
	failures  []int
	limitedTo time.Time
	requests  []Request
}

// New starts a server on a free loopback port.
func New() *Server {
	s := newServer()
	s.Server = httptest.NewServer(s.routes())
	return s
}

// NewOn serves on l (a process that other processes reach, as an
// example's). Start it with s.Start.
func NewOn(l net.Listener) *Server {
	s := newServer()
	s.Server = httptest.NewUnstartedServer(s.routes())
	_ = s.Server.Listener.Close()
	s.Server.Listener = l
	return s
}

func newServer() *Server { return &Server{repos: map[string][]*PR{}} }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls", s.github)
	mux.HandleFunc("GET /api/v4/projects/{id}/merge_requests", s.gitlab)
	mux.HandleFunc("GET /api/v1/repos/{owner}/{repo}/pulls", s.gitea)
	return mux
}

// RequireToken makes every request without token get 401.
func (s *Server) RequireToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = token
}

// Add opens pr in repo (owner/name).
func (s *Server) Add(repo string, pr PR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := pr
	s.repos[repo] = append(s.repos[repo], &p)
}

// ClosePR closes (or merges) pull request n of repo.
func (s *Server) ClosePR(repo string, n int) { s.change(repo, n, func(p *PR) { p.closed = true }) }

// Push moves pull request n's head to head.
func (s *Server) Push(repo string, n int, head string) {
	s.change(repo, n, func(p *PR) { p.Head = head })
}

// SetLabels replaces pull request n's labels.
func (s *Server) SetLabels(repo string, n int, labels ...string) {
	s.change(repo, n, func(p *PR) { p.Labels = labels })
}

func (s *Server) change(repo string, n int, f func(*PR)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.repos[repo] {
		if p.Number == n {
			f(p)
		}
	}
}

// FailNext makes the next n listing requests answer status.
func (s *Server) FailNext(n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures = append(s.failures, status)
	}
}

// RateLimitUntil answers every request until t with 403 and the headers of
// a spent rate limit that resets at t.
func (s *Server) RateLimitUntil(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limitedTo = t
}

// Requests are the requests answered, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Count is how many requests for path's listing were answered with status
// (0: any).
func (s *Server) Count(path string, status int) int {
	n := 0
	for _, r := range s.Requests() {
		if strings.HasPrefix(r.Path, path) && (status == 0 || r.Status == status) {
			n++
		}
	}
	return n
}

// open are repo's open pull requests, by number.
func (s *Server) open(repo string) []PR {
	var out []PR
	for _, p := range s.repos[repo] {
		if !p.closed {
			out = append(out, *p)
		}
	}
	slices.SortFunc(out, func(a, b PR) int { return a.Number - b.Number })
	return out
}

// answer writes one page of items, or the failure, rate limit, 401 or 304
// the request gets, and records it.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, items []any, page, size int, next func(int)) {
	status := s.refusal(w, r)
	if status == 0 {
		status = s.page(w, r, items, page, size, next)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Status: status,
		Authorized:  r.Header.Get("Authorization") != "" || r.Header.Get("PRIVATE-TOKEN") != "",
		Conditional: r.Header.Get("If-None-Match") != ""})
}

// refusal answers a request the server refuses and returns its status, or
// 0 for one it serves.
func (s *Server) refusal(w http.ResponseWriter, r *http.Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	w.Header().Set("X-RateLimit-Limit", "5000")
	switch {
	case now.Before(s.limitedTo):
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(s.limitedTo.Unix()+1, 10))
		http.Error(w, `{"message":"API rate limit exceeded"}`, http.StatusForbidden)
		return http.StatusForbidden
	case s.token != "" && !carries(r, s.token):
		http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
		return http.StatusUnauthorized
	case len(s.failures) > 0:
		status := s.failures[0]
		s.failures = s.failures[1:]
		http.Error(w, fmt.Sprintf(`{"message":"failure %d on demand"}`, status), status)
		return status
	}
	w.Header().Set("X-RateLimit-Remaining", "4999")
	w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(now.Add(time.Hour).Unix(), 10))
	return 0
}

// carries reports whether r carries token in one of the providers' headers.
func carries(r *http.Request, token string) bool {
	auth := r.Header.Get("Authorization")
	return auth == "Bearer "+token || auth == "token "+token || r.Header.Get("PRIVATE-TOKEN") == token
}

// page writes items[page] with a strong ETag, or 304 when If-None-Match
// holds it.
func (s *Server) page(w http.ResponseWriter, r *http.Request, items []any, page, size int, next func(int)) int {
	start := min((page-1)*size, len(items))
	end := min(start+size, len(items))
	body, err := json.Marshal(items[start:end])
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return http.StatusInternalServerError
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if end < len(items) {
		next(page + 1)
	}
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return http.StatusNotModified
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
	return http.StatusOK
}

// pageOf reads the page and page size of r (size under sizeKey).
func pageOf(r *http.Request, sizeKey string, size int) (int, int) {
	page, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	if n, err := strconv.Atoi(r.URL.Query().Get(sizeKey)); err == nil && n > 0 {
		size = n
	}
	return page, size
}
