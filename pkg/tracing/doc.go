// Package tracing builds the OpenTelemetry TracerProvider that the
// reference operator, scaffolded operators and the wavekit CLI give to
// pkg/component and pkg/engine, from the standard OTEL_* environment
// variables and a few flags.
//
// # Building a provider
//
// New returns a provider and its Shutdown for a Config; Enabled tells
// whether a Config turns tracing on. Tracing is off (a no-op provider: no
// goroutine, no allocation per pass) unless an endpoint or a file is given.
//
// # The environment
//
// The environment variables are the OpenTelemetry SDK's own:
// OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (either
// turns tracing on), OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL (http/protobuf, the
// default, or grpc), OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, _INSECURE,
// _TIMEOUT, OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG,
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none turns tracing off whatever else is set.
//
// # Spans
//
// The spans themselves are started by package spans, which imports only the
// OpenTelemetry API, so that pkg/engine and pkg/component do not depend on
// the SDK this package brings.
package tracing
