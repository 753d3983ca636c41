package spans

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Start starts a child span name of the span in ctx with the tracer
// tracerName, or returns ctx and the span in it unchanged when that span
// records nothing. Set attributes only when span.IsRecording().
func Start(ctx context.Context, tracerName, name string) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer(tracerName).Start(ctx, name)
}

// End ends a span Start started, failed with err when err is set (its
// message is the span's status: it names objects, never a Secret's value).
// A span that records nothing is its parent's, and is not ended.
func End(span trace.Span, err error) {
	if !span.IsRecording() {
		return
	}
	if err != nil {
		Fail(span, err, err.Error())
	}
	span.End()
}

// Fail marks span as failed with err and message, the same words as the
// condition or error the user sees.
func Fail(span trace.Span, err error, message string) {
	if err != nil {
		span.RecordError(err)
	}
	span.SetStatus(codes.Error, message)
}
