package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Config says where spans go. Its zero value leaves everything to the
// environment.
type Config struct {
	// ServiceName is service.name unless OTEL_SERVICE_NAME says otherwise.
	ServiceName string
	// Endpoint is the OTLP collector's URL (http://collector:4318, or
	// http://collector:4317 with OTEL_EXPORTER_OTLP_PROTOCOL=grpc); it
	// overrides OTEL_EXPORTER_OTLP_ENDPOINT and turns tracing on.
	Endpoint string
	// SampleRatio, when set, samples that share of the traces that start
	// here (parent-based: a sampled parent's children are sampled), in
	// place of OTEL_TRACES_SAMPLER.
	SampleRatio *float64
	// File, when set, writes every span to that file, one JSON object a
	// line (the stdouttrace exporter's form), besides any endpoint.
	File string
}

// Shutdown flushes the spans not exported yet and stops the exporters.
type Shutdown func(context.Context) error

// New returns the TracerProvider cfg and the environment ask for, and its
// Shutdown; when neither asks for tracing, the no-op provider.
func New(ctx context.Context, cfg Config) (trace.TracerProvider, Shutdown, error) {
	if !Enabled(cfg) {
		return noop.NewTracerProvider(), func(context.Context) error { return nil }, nil
	}
	var opts []sdktrace.TracerProviderOption
	var closers []func() error
	if cfg.Endpoint != "" || envEndpoint() != "" {
		exp, err := otlpExporter(ctx, cfg.Endpoint)
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	if cfg.File != "" {
		exp, closeFile, err := fileExporter(cfg.File)
		if err != nil {
			return nil, nil, err
		}
		closers = append(closers, closeFile)
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	if cfg.SampleRatio != nil {
		opts = append(opts, sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(*cfg.SampleRatio))))
	}
	res, err := newResource(ctx, cfg.ServiceName)
	if err != nil {
		return nil, nil, err
	}
	tp := sdktrace.NewTracerProvider(append(opts, sdktrace.WithResource(res))...)
	return tp, func(ctx context.Context) error {
		errs := []error{tp.Shutdown(ctx)}
		for _, c := range closers {
			errs = append(errs, c())
		}
		return errors.Join(errs...)
	}, nil
}

// Enabled reports whether cfg or the environment asks for tracing.
func Enabled(cfg Config) bool {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") || os.Getenv("OTEL_TRACES_EXPORTER") == "none" {
		return false
	}
	return cfg.Endpoint != "" || cfg.File != "" || envEndpoint() != ""
}

// CheckSampleRatio says what is wrong with a sample ratio given as a flag.
func CheckSampleRatio(ratio float64) error {
	if !(ratio >= 0 && ratio <= 1) {
		return errors.New("give a number from 0 to 1")
	}
	return nil
}

func envEndpoint() string {
	if e := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); e != "" {
		return e
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
}

func envProtocol() string {
	if p := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"); p != "" {
		return p
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
}

// otlpExporter is the OTLP exporter of the protocol the environment names
// (http/protobuf unless grpc); endpoint, when set, overrides the
// environment's.
func otlpExporter(ctx context.Context, endpoint string) (sdktrace.SpanExporter, error) {
	if envProtocol() == "grpc" {
		var opts []otlptracegrpc.Option
		if endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(endpoint))
		}
		exp, err := otlptracegrpc.New(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("creating the OTLP/gRPC trace exporter: %w", err)
		}
		return exp, nil
	}
	var opts []otlptracehttp.Option
	if endpoint != "" {
		opts = append(opts, otlptracehttp.WithEndpointURL(tracesURL(endpoint)))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("creating the OTLP/HTTP trace exporter: %w", err)
	}
	return exp, nil
}

// tracesURL is the URL spans are sent to over OTLP/HTTP for a collector's
// base URL, as for OTEL_EXPORTER_OTLP_ENDPOINT: /v1/traces unless it names
// a path of its own.
func tracesURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return endpoint
	}
	u.Path = "/v1/traces"
	return u.String()
}

// fileExporter writes spans to path, one JSON object a line.
func fileExporter(path string) (sdktrace.SpanExporter, func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the trace file: %w", err)
	}
	exp, err := stdouttrace.New(stdouttrace.WithWriter(f))
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("creating the trace file exporter: %w", err)
	}
	return exp, f.Close, nil
}

// newResource describes this process: service.name defaults to name, and
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override it.
func newResource(ctx context.Context, name string) (*resource.Resource, error) {
	if name == "" {
		name = "wavekit"
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", name)),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("describing the process for traces: %w", err)
	}
	return res, nil
}
