package fetch

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/wavekit-dev/wavekit/pkg/tracing/spans"
)

// The fetcher's spans are children of the span in the caller's context (a
// Reconcile's render): the fetch of a chart or an artifact, and each HTTP
// download within it. They name URLs without their credentials (redact);
// nothing is traced when the span in the context records nothing.

const tracerName = "github.com/wavekit-dev/wavekit/pkg/fetch"

// startSpan starts a span of the fetcher's (spans.Start).
func startSpan(ctx context.Context, name string) (context.Context, trace.Span) {
	return spans.Start(ctx, tracerName, name)
}

// endFetchSpan ends the span of a fetch with what it fetched.
func endFetchSpan(span trace.Span, got Fetched, err error) {
	if span.IsRecording() && err == nil {
		span.SetAttributes(attribute.String("wavekit.source.revision", got.Revision), attribute.String("wavekit.source.digest", got.Digest))
	}
	spans.End(span, err)
}
