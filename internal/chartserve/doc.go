// Package chartserve packages the charts of directories, as helm package
// does, and serves them as a Helm repository over HTTP on a given address:
// the archives and an index.yaml that helm's repo.IndexDirectory builds.
// `wavekit cluster create --charts DIR` runs it beside the operator, so that
// a Component's spec.chart can name a chart with no network.
package chartserve
