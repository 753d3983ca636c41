// Package bench holds the side-by-side benchmarks of `make bench`: wavekit's
// reference operator and CLI, run as the processes users run, against the
// tools they compare it with, on the same local control plane in the same
// run.
//
// # Operator against a bare client
//
// BenchmarkOperatorVsRaw8 creates N ConfigMaps with a bare client and 8
// workers ("raw8"), deletes them, then has the component-operator binary
// apply and delete one Component of the same N ConfigMaps. It reports both
// times, their ratio and the operator process's peak RSS.
//
// # CLI against helm, kubectl and kapp
//
// BenchmarkCLI installs, upgrades (every object changed), diffs (nothing
// changed) and uninstalls one chart of N ConfigMaps with the wavekit CLI and
// with helm; it diffs with kubectl, and deploys with kapp. helm builds from
// this module's go.mod, kubectl and kapp from modules of their own under
// hack/, so that none of their dependencies leak into wavekit's.
//
// Every benchmark logs its table; times are whole-process wall times from
// one run each, so read them as rough.
package bench
