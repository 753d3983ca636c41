package main

import (
	"flag"
	"fmt"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	crzap "sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// maxLogVerbosity is the highest --zap-log-level the operator logs at: from
// verbosity 8 on, client-go logs the bodies of API requests and responses,
// the values of the Secrets the operator applies included.
const maxLogVerbosity = 7

// capLogVerbosity lowers a --zap-log-level above maxLogVerbosity to it.
func capLogVerbosity(o *crzap.Options) {
	if level, ok := o.Level.(zap.AtomicLevel); ok && level.Level() < -maxLogVerbosity {
		level.SetLevel(zapcore.Level(-maxLogVerbosity))
	}
}

// bindLogFormatFlag adds --log-format: json (one object a line; a traced
// Reconcile's lines carry trace_id and span_id) or text. Unset, the zap
// flags decide (JSON, or text with --zap-devel).
func bindLogFormatFlag(fs *flag.FlagSet) *string {
	return fs.String("log-format", "", "log lines as json (one object a line, with trace_id and span_id in a traced Reconcile's) or text (default: json, or text with --zap-devel)")
}

// applyLogFormat sets the encoder of --log-format over the zap flags'.
func applyLogFormat(format string, o *crzap.Options) error {
	switch format {
	case "":
	case "json":
		crzap.JSONEncoder()(o)
	case "text":
		crzap.ConsoleEncoder()(o)
	default:
		return fmt.Errorf("--log-format %s: give json or text", format)
	}
	return nil
}
