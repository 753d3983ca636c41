// Package cli implements the wavekit command line: render, diff, apply,
// delete, status and list work with a component's manifests without an
// operator, through the same applier the operator uses. main only calls Run,
// so tests run every command in process.
package cli
