package webhooktest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// Request is one request the server got.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Server keeps what it gets. Close it when done.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Request
	status   int
	answer   string
}

// New starts a server that answers 200 with no body.
func New() *Server {
	s := &Server{status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		status, answer := s.status, s.answer
		s.mu.Unlock()
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	}))
	return s
}

// Answer makes the server answer the next requests with status and body.
func (s *Server) Answer(status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.answer = status, body
}

// Requests are the requests so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Bodies are the bodies so far, as text.
func (s *Server) Bodies() []string {
	var out []string
	for _, r := range s.Requests() {
		out = append(out, string(r.Body))
	}
	return out
}

// JSON are the bodies so far, decoded as JSON objects.
func (s *Server) JSON() ([]map[string]any, error) {
	var out []map[string]any
	for _, r := range s.Requests() {
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			return nil, fmt.Errorf("a body that is no JSON object: %s: %w", r.Body, err)
		}
		out = append(out, body)
	}
	return out, nil
}

// Events are the bodies so far decoded as the generic webhook's alerts.
func (s *Server) Events() ([]notify.Event, error) {
	var out []notify.Event
	for _, r := range s.Requests() {
		var e notify.Event
		if err := json.Unmarshal(r.Body, &e); err != nil {
			return nil, fmt.Errorf("a body that is no alert: %s: %w", r.Body, err)
		}
		out = append(out, e)
	}
	return out, nil
}
