// Package scaffold writes a new component operator project: a Go module in
// the kubebuilder layout that serves one custom resource kind with a wavekit
// reconciler and an embedded Helm chart, kustomization, folder of Go
// templates or a custom Go generator. The CLI's `wavekit scaffold` calls it.
package scaffold
