package notifiers_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// received is one request a test receiver got.
type received struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// receiver is a real HTTP server that records what it gets and answers
// with status.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	requests []received
	status   int
}

func newReceiver() *receiver {
	r := &receiver{status: http.StatusOK}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.requests = append(r.requests, received{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
		status := r.status
		r.mu.Unlock()
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"answer":"from the receiver"}`))
	}))
	DeferCleanup(r.Close)
	return r
}

func (r *receiver) answer(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = status
}

// last is the last request, its body decoded as JSON into a map.
func (r *receiver) last() (received, map[string]any) {
	GinkgoHelper()
	r.mu.Lock()
	defer r.mu.Unlock()
	Expect(r.requests).NotTo(BeEmpty())
	got := r.requests[len(r.requests)-1]
	var body map[string]any
	Expect(json.Unmarshal(got.Body, &body)).To(Succeed(), "the body is JSON: %s", got.Body)
	return got, body
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.requests)
}
