// Package source picks the generator for a directory on disk: a Helm chart
// (a Chart.yaml), a kustomization (kustomization.yaml, kustomization.yml or
// Kustomization), or otherwise a folder of Go templates. The wavekit CLI and
// the reference operator use it, so that neither needs Go code from its users
// to render a component.
//
// A directory meant as a Helm chart whose files are misnamed is an error,
// not a folder of Go templates: without Chart.yaml and without a
// kustomization file, a file named Chart.yml or Chart.yaml in another case
// (chart.yaml), or a values.yaml or values.yml, is refused with the name to
// use. A chart with values.yml and no values.yaml is refused too, since Helm
// reads its default values only from values.yaml.
package source
