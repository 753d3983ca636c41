package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/wavekit-dev/wavekit/pkg/tracing"
)

// tracingFlags are the flags that send the operator's traces to an OTLP
// collector; the standard OTEL_* environment variables work too, and the
// flags override them.
type tracingFlags struct {
	endpoint string
	ratio    float64
}

func bindTracingFlags(fs *flag.FlagSet) *tracingFlags {
	t := &tracingFlags{}
	fs.StringVar(&t.endpoint, "otlp-endpoint", "", "base URL of an OTLP collector to send a trace of every Reconcile to (http://collector:4318; overrides OTEL_EXPORTER_OTLP_ENDPOINT; default: that variable, else tracing off)")
	fs.Float64Var(&t.ratio, "trace-sample-ratio", math.NaN(), "share of Reconciles traced, from 0 to 1 (overrides OTEL_TRACES_SAMPLER; default: that variable, else 1)")
	return t
}

// check says what is wrong with the flags.
func (t *tracingFlags) check() error {
	if math.IsNaN(t.ratio) {
		return nil
	}
	if err := tracing.CheckSampleRatio(t.ratio); err != nil {
		return fmt.Errorf("--trace-sample-ratio %g: %w", t.ratio, err)
	}
	return nil
}

// config is the tracing configuration of the operator named name.
func (t *tracingFlags) config() tracing.Config {
	cfg := tracing.Config{ServiceName: "component-operator", Endpoint: t.endpoint}
	if !math.IsNaN(t.ratio) {
		cfg.SampleRatio = &t.ratio
	}
	return cfg
}
