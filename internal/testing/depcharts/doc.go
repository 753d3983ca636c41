// Package depcharts holds the charts the tests of chart dependencies
// share: Greeter, a chart of one ConfigMap to serve from a Helm repository
// or an OCI registry, and Source, a source tree whose chart names a
// dependency of each kind in its Chart.yaml and holds none in charts/.
package depcharts
