package robustness_test

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// spanSink is the OTLP/HTTP trace collector the run's replicas send a
// trace of every Reconcile to: it keeps the spans as JSON text, to look
// for Secret values in them as in the logs.
type spanSink struct {
	server *httptest.Server
	mu     sync.Mutex
	text   strings.Builder
	spans  int
}

func startSpanSink() *spanSink {
	s := &spanSink{}
	s.server = httptest.NewServer(http.HandlerFunc(s.export))
	return s
}

// export takes one ExportTraceServiceRequest (protobuf, gzipped or not).
func (s *spanSink) export(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	raw, err := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(raw, &req)
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("not an OTLP trace export: %v", err), http.StatusBadRequest)
		return
	}
	text, _ := protojson.Marshal(&req)
	s.mu.Lock()
	s.text.Write(append(text, '\n'))
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			s.spans += len(ss.Spans)
		}
	}
	s.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// received returns the spans' text and how many spans came.
func (s *spanSink) received() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text.String(), s.spans
}
