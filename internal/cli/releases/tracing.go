package releases

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/tracing"
)

// traceOptions trace one run of apply, delete or diff: a span for the run
// and, within it, the engine's (plan, waves, Jobs) and each pass's. They go
// to the --trace file, one JSON object a line, and to an OTLP collector
// when the OTEL_EXPORTER_OTLP_* variables name one.
type traceOptions struct {
	file string
}

func (t *traceOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&t.file, "trace", "",
		"write the OpenTelemetry spans of this run to FILE, one JSON object a line (the stdouttrace exporter's form); OTEL_EXPORTER_OTLP_ENDPOINT sends them to a collector too")
}

// traceFlush bounds the export of a run's spans once it is over.
const traceFlush = 10 * time.Second

// run runs fn in the span of the command verb on release name, when
// tracing is on, and exports the spans before it returns.
func (t *traceOptions) run(ctx context.Context, verb, name string, fn func(context.Context) error) (err error) {
	cfg := tracing.Config{ServiceName: "wavekit", File: t.file}
	if !tracing.Enabled(cfg) {
		return fn(ctx)
	}
	tp, shutdown, err := tracing.New(ctx, cfg)
	if err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	defer func() {
		flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), traceFlush)
		defer cancel()
		if ferr := shutdown(flushCtx); ferr != nil {
			err = errors.Join(err, fmt.Errorf("writing the trace: %w", ferr))
		}
	}()
	ctx, span := tp.Tracer("github.com/wavekit-dev/wavekit/internal/cli").Start(ctx, "wavekit "+verb,
		trace.WithAttributes(attribute.String("wavekit.release", name)))
	defer func() {
		var exit *session.ExitError
		switch {
		case verb == "diff" && errors.As(err, &exit) && exit.Code == 1:
			span.SetAttributes(attribute.Bool("wavekit.changes", true)) // not a failure
		case err != nil:
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}()
	return fn(ctx)
}

// passSpan starts the span of one engine pass of a run; end it with endPass.
func passSpan(ctx context.Context) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer("github.com/wavekit-dev/wavekit/internal/cli").Start(ctx, "pass")
}

// endPass ends a pass's span, failed with err when it failed.
func endPass(span trace.Span, done bool, err error) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attribute.Bool("wavekit.done", done))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
