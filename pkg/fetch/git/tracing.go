package git

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// The Source's spans are children of the span in the caller's context (a
// Reconcile's render): a look at a remote and a fetch. They name the URL,
// which holds no credential (parseURL refuses one that does), the ref and
// the revision; nothing is traced when the span in the context records
// nothing.

const tracerName = "github.com/wavekit-dev/wavekit/pkg/fetch/git"

// startSpan starts a span of the Source's for req.
func startSpan(ctx context.Context, name string, req *Request) (context.Context, trace.Span) {
	ctx, span := spans.Start(ctx, tracerName, name)
	if span.IsRecording() {
		span.SetAttributes(attribute.String("url.full", redactURL(req.URL)), attribute.String("wavekit.git.ref", req.Ref.String()))
	}
	return ctx, span
}

// endSpan ends a span with the revision it reached, if any.
func endSpan(span trace.Span, revision string, err error) {
	if span.IsRecording() && revision != "" {
		span.SetAttributes(attribute.String("wavekit.source.revision", revision))
	}
	spans.End(span, err)
}
