// Package releases holds the commands on releases, a source installed
// under a name in a namespace without an operator: render, diff, apply,
// status, list, history, rollback, test and delete. A release lives in the
// Secret wavekit.<NAME> (release.go: its inventory, delete hooks, history,
// drift and health-check settings); apply and delete run passes of the
// engine until done or --wait times out (releaseapply.go, delete.go), with
// progress on the terminal (progress.go) and, with --trace, spans
// (tracing.go).
package releases
