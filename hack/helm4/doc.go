// Module helm4 pins Helm 4, which `make bench` builds (go build
// helm.sh/helm/v4/cmd/helm in this directory) to compare the wavekit CLI with
// it beside Helm 3 (the helm of wavekit's own go.mod). A module of its own
// keeps Helm 4's dependencies out of wavekit's.
package helm4
