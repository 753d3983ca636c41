// Package krew packages the wavekit CLI for krew, kubectl's plugin
// manager: one tar.gz per platform holding the binary as kubectl-wavekit,
// and the Plugin manifest that names each archive with its sha256.
package krew
