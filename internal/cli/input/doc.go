// Package input is what a command renders: a source directory (a Helm
// chart, a kustomization or Go templates, detected) or a chart from a
// repository or an OCI registry (ChartOptions, verified when asked), its
// values (-f files, --set; SOPS-encrypted files and objects decrypted with
// --sops-age-key), loaded without a cluster so bad input fails first, then
// rendered for a release (Source.Render).
package input
