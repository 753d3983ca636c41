// Package input is what a command renders: a source directory (a Helm
// chart, a kustomization or Go templates, detected) or a chart from a
// repository or an OCI registry (ChartOptions, verified when asked), its
// values (-f files, --set; SOPS-encrypted files and objects decrypted with
// --sops-age-key), loaded without a cluster so bad input fails first, then
// rendered for a release (Source.Render).
//
// A chart's dependencies that charts/ does not hold are fetched when it is
// rendered (DependencyOptions), as `helm dependency build` fetches them:
// @name, alias:name and credentials from Helm's repositories file,
// --plain-http for OCI registries, file:// paths inside the chart's Git
// work tree (SourceRoot), the archives kept in a chart cache that later
// runs share (DefaultChartCache), and --verify checking each by its
// repository's kind (VerifyOptions).
package input
