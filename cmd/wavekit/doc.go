// Command wavekit renders, diffs, applies and deletes component manifests
// (Helm charts, kustomizations, Go templates) in waves; see docs/cli.md.
// Installed as kubectl-wavekit, it is the kubectl plugin "kubectl wavekit".
package main
