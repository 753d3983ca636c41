// Package clitest runs the wavekit command line in process, as a user runs
// it, for the suites of internal/cli and its packages: the suite's local
// cluster (Start), kubeconfigs that reach it, one that reaches nothing and
// one through a proxy that counts requests, a run's exit code and output
// (Wavekit, Succeeds), a namespace per test, and what the specs of several
// packages check: objects left in a namespace, pods held at their
// scheduling gate, bad input to the diff verbs.
package clitest
