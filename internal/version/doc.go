// Package version tells which wavekit a binary is.
//
// A release build is stamped by the Makefile from the git tag:
//
//	go build -ldflags "-X github.com/wavekit-dev/wavekit/internal/version.stamped=v0.2.0" ./cmd/wavekit
//
// Without a stamp, the version is the one the Go toolchain recorded for the
// main module: a tagged module version for `go install …@v0.2.0`, a
// pseudo-version or "(devel)" for a build from a checkout.
package version
