package tracing

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace/noop"
)

// clearEnv unsets the variables that turn tracing on, for one test.
func clearEnv(t *testing.T) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

func TestOffByDefault(t *testing.T) {
	clearEnv(t)
	tp, shutdown, err := New(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tp.(noop.TracerProvider); !ok {
		t.Fatalf("got %T, want the no-op provider", tp)
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestEnabled(t *testing.T) {
	clearEnv(t)
	if Enabled(Config{}) {
		t.Error("on without an endpoint or a file")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
	if !Enabled(Config{}) {
		t.Error("off with OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	t.Setenv("OTEL_SDK_DISABLED", "true")
	if Enabled(Config{Endpoint: "http://collector:4318"}) {
		t.Error("on with OTEL_SDK_DISABLED=true")
	}
}

func TestTracesURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://collector:4318":          "http://collector:4318/v1/traces",
		"http://collector:4318/":         "http://collector:4318/v1/traces",
		"https://collector/otlp/traces/": "https://collector/otlp/traces/",
	} {
		if got := tracesURL(in); got != want {
			t.Errorf("tracesURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckSampleRatio(t *testing.T) {
	for ratio, ok := range map[float64]bool{0: true, 0.5: true, 1: true, -0.1: false, 1.5: false} {
		if err := CheckSampleRatio(ratio); (err == nil) != ok {
			t.Errorf("CheckSampleRatio(%g) = %v", ratio, err)
		}
	}
}

func TestFileHasOneSpanALine(t *testing.T) {
	clearEnv(t)
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	tp, shutdown, err := New(context.Background(), Config{File: path, ServiceName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, outer := tp.Tracer("test").Start(context.Background(), "outer")
	_, inner := tp.Tracer("test").Start(ctx, "inner")
	inner.End()
	outer.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"Name":"inner"`) || !strings.Contains(lines[1], `"Name":"outer"`) {
		t.Fatalf("got %d lines:\n%s", len(lines), data)
	}
	if !strings.Contains(lines[0], `"service.name"`) || !strings.Contains(lines[0], `"test"`) {
		t.Errorf("no service.name test in %s", lines[0])
	}
}
