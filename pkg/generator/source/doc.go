// Package source picks the generator for a directory on disk: a Helm chart
// (a Chart.yaml), a kustomization (kustomization.yaml, kustomization.yml or
// Kustomization), or otherwise a folder of Go templates. The wavekit CLI and
// the reference operator use it, so that neither needs Go code from its users
// to render a component.
package source
