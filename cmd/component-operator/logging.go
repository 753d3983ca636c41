package main

import (
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
