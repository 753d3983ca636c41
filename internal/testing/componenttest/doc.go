// Package componenttest holds what the suites that run component operators
// against the test control plane share: managers that several of them start
// in one process, reading a Component's Ready condition, and the counters
// of the metrics registry.
package componenttest
