package tracing_test

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP trace receiver: it decodes the protobuf
// ExportTraceServiceRequests posted to it and keeps their spans, and the
// raw bodies, to look for what no span may carry.
type receiver struct {
	mu     sync.Mutex
	bodies [][]byte
	spans  []span
}

// span is what the specs look at of one received span.
type span struct {
	TraceID, SpanID, ParentID string
	Name                      string
	Start, End                uint64
	Attributes                map[string]string
	Error                     bool
	StatusMessage             string
	Links                     []string // the span IDs linked to
	Events                    []string // event names and attributes
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.bodies = append(rc.bodies, body)
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				rc.spans = append(rc.spans, decodeSpan(s))
			}
		}
	}
	rc.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func readBody(r *http.Request) ([]byte, error) {
	var in io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, err
		}
		in = gz
	}
	return io.ReadAll(in)
}

func decodeSpan(s *tracepb.Span) span {
	out := span{
		TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId), ParentID: hex.EncodeToString(s.ParentSpanId),
		Name: s.Name, Start: s.StartTimeUnixNano, End: s.EndTimeUnixNano, Attributes: attributes(s.Attributes),
	}
	if s.Status != nil {
		out.Error = s.Status.Code == tracepb.Status_STATUS_CODE_ERROR
		out.StatusMessage = s.Status.Message
	}
	for _, l := range s.Links {
		out.Links = append(out.Links, hex.EncodeToString(l.SpanId))
	}
	for _, e := range s.Events {
		out.Events = append(out.Events, fmt.Sprintf("%s %v", e.Name, attributes(e.Attributes)))
	}
	return out
}

func attributes(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.Key] = anyValue(kv.Value)
	}
	return out
}

func anyValue(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.Values {
			parts = append(parts, anyValue(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return v.String()
}

// all returns the spans received so far, in the order they started.
func (rc *receiver) all() []span {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := slices.Clone(rc.spans)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// contains tells whether any request body received holds b.
func (rc *receiver) contains(b []byte) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, body := range rc.bodies {
		if bytes.Contains(body, b) {
			return true
		}
	}
	return false
}

// reconciles returns the Reconcile spans of the component namespace/name,
// in the order they started.
func reconciles(spans []span, namespace, name string) []span {
	var out []span
	for _, s := range spans {
		if s.Name == "Reconcile" && s.Attributes["k8s.namespace.name"] == namespace && s.Attributes["wavekit.component.name"] == name {
			out = append(out, s)
		}
	}
	return out
}

// children returns the spans whose parent is parent, in start order.
func children(spans []span, parent span) []span {
	var out []span
	for _, s := range spans {
		if s.TraceID == parent.TraceID && s.ParentID == parent.SpanID {
			out = append(out, s)
		}
	}
	return out
}

// names returns the names of spans.
func names(spans []span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}

// render writes the tree of spans under root, one a line, indented by
// depth, with its duration and the attributes that say what it did.
func render(w io.Writer, spans []span, root span, depth int) {
	line := fmt.Sprintf("%s%s %s", strings.Repeat("  ", depth), root.Name, durationOf(root))
	for _, key := range []string{"wavekit.component.name", "wavekit.component.generation", "wavekit.outcome", "wavekit.wave", "wavekit.wave.done",
		"wavekit.objects.created", "wavekit.objects.unchanged", "wavekit.objects.waiting", "wavekit.wave.held_by",
		"k8s.object.kind", "k8s.object.name", "wavekit.object.phase", "wavekit.objects", "wavekit.render.kept"} {
		if v, ok := root.Attributes[key]; ok {
			line += fmt.Sprintf(" %s=%s", strings.TrimPrefix(key, "wavekit."), v)
		}
	}
	if root.Error {
		line += " ERROR: " + root.StatusMessage
	}
	if len(root.Links) > 0 {
		line += " (linked to the pass before)"
	}
	_, _ = fmt.Fprintln(w, line)
	for _, c := range children(spans, root) {
		render(w, spans, c, depth+1)
	}
}

func durationOf(s span) string {
	ms := float64(s.End-s.Start) / 1e6
	return fmt.Sprintf("%.1fms", ms)
}
