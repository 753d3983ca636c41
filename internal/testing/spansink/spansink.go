package spansink

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Sink receives OTLP trace exports until Close.
type Sink struct {
	server *httptest.Server
	mu     sync.Mutex
	text   strings.Builder
	spans  []Span
}

// Span is a span as received: its name and its attributes' values as text.
type Span struct {
	Name       string
	Attributes map[string]string
}

// Start starts a sink on a local port.
func Start() *Sink {
	s := &Sink{}
	s.server = httptest.NewServer(http.HandlerFunc(s.export))
	return s
}

// URL is the base URL to give an OTLP exporter.
func (s *Sink) URL() string { return s.server.URL }

// Close stops the sink.
func (s *Sink) Close() { s.server.Close() }

// Text is every export received, as protobuf JSON, one a line.
func (s *Sink) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text.String()
}

// Spans are the spans received, in order.
func (s *Sink) Spans() []Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Span(nil), s.spans...)
}

// export takes one ExportTraceServiceRequest (protobuf, gzipped or not).
func (s *Sink) export(w http.ResponseWriter, r *http.Request) {
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
			for _, span := range ss.Spans {
				s.spans = append(s.spans, Span{Name: span.Name, Attributes: attributes(span.Attributes)})
			}
		}
	}
	s.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func attributes(kvs []*commonpb.KeyValue) map[string]string {
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.Key] = v.StringValue
		case *commonpb.AnyValue_BoolValue:
			out[kv.Key] = strconv.FormatBool(v.BoolValue)
		case *commonpb.AnyValue_IntValue:
			out[kv.Key] = strconv.FormatInt(v.IntValue, 10)
		default:
			text, _ := protojson.Marshal(kv.GetValue())
			out[kv.Key] = string(text)
		}
	}
	return out
}
