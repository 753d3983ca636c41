package localregistry

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
)

// Alterer makes a registry serve other bytes for one blob, as a
// compromised registry or storage would: give its Wrap to Options.Wrap,
// then call Alter with the blob's digest.
type Alterer struct {
	mu     sync.Mutex
	suffix string
}

// Alter makes the registry flip the last byte of the blob of digest from
// now on.
func (a *Alterer) Alter(digest string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.suffix = "/blobs/" + digest
}

// Wrap wraps a registry's handler.
func (a *Alterer) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		altered := a.suffix != "" && strings.HasSuffix(r.URL.Path, a.suffix)
		a.mu.Unlock()
		if !altered || r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		rec := &heldResponse{header: http.Header{}, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		body := rec.body.Bytes()
		if len(body) > 0 {
			body[len(body)-1] ^= 0xff
		}
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.status)
		_, _ = w.Write(body)
	})
}

// heldResponse is a response held back to be altered.
type heldResponse struct {
	header http.Header
	body   bytes.Buffer
	status int
}

func (r *heldResponse) Header() http.Header         { return r.header }
func (r *heldResponse) Write(p []byte) (int, error) { return r.body.Write(p) }
func (r *heldResponse) WriteHeader(status int)      { r.status = status }
