package fakegithub

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Status is a commit status as the API takes and gives it.
type Status struct {
	State       string `json:"state"`
	Description string `json:"description,omitempty"`
	Context     string `json:"context,omitempty"`
	TargetURL   string `json:"target_url,omitempty"`
}

// Server serves the API; its URL is the API's base URL. Close it when done.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	statuses map[string][]Status // by owner/repo/sha, newest first
	requests []string            // "METHOD path"
	tokens   []string            // the Authorization header of each request
}

// New starts a server.
func New() *Server {
	s := &Server{statuses: map[string][]Status{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}/commits/{sha}/statuses", s.list)
	mux.HandleFunc("POST /repos/{owner}/{repo}/statuses/{sha}", s.create)
	s.Server = httptest.NewServer(mux)
	return s
}

func (s *Server) record(r *http.Request) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r.Method+" "+r.URL.Path)
	s.tokens = append(s.tokens, r.Header.Get("Authorization"))
	return r.PathValue("owner") + "/" + r.PathValue("repo") + "/" + r.PathValue("sha")
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	commit := s.record(r)
	s.mu.Lock()
	list := append([]Status{}, s.statuses[commit]...)
	s.mu.Unlock()
	_ = json.NewEncoder(w).Encode(list)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	commit := s.record(r)
	var status Status
	if err := json.NewDecoder(r.Body).Decode(&status); err != nil || status.State == "" {
		http.Error(w, `{"message":"Validation Failed"}`, http.StatusUnprocessableEntity)
		return
	}
	s.mu.Lock()
	s.statuses[commit] = append([]Status{status}, s.statuses[commit]...)
	s.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(status)
}

// Statuses are the statuses of owner/repo's commit sha, newest first.
func (s *Server) Statuses(owner, repo, sha string) []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Status(nil), s.statuses[owner+"/"+repo+"/"+sha]...)
}

// Requests are "METHOD path" of each request, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Tokens are the Authorization headers of each request, in order.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tokens...)
}
