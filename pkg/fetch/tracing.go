package fetch

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// The fetcher's spans are children of the span in the caller's context (a
// Reconcile's render): the fetch of a chart or an artifact, and each HTTP
// download within it. They name URLs without their credentials (redact);
// nothing is traced when the span in the context records nothing.

const tracerName = "github.com/wavekit-dev/wavekit/pkg/fetch"

func startSpan(ctx context.Context, name string) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer(tracerName).Start(ctx, name)
}

func endSpan(span trace.Span, err error) {
	if !span.IsRecording() {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// endFetchSpan ends the span of a fetch with what it fetched.
func endFetchSpan(span trace.Span, got Fetched, err error) {
	if span.IsRecording() && err == nil {
		span.SetAttributes(attribute.String("wavekit.source.revision", got.Revision), attribute.String("wavekit.source.digest", got.Digest))
	}
	endSpan(span, err)
}
