// Module kapp pins Carvel's kapp, which `make bench` builds (go build
// carvel.dev/kapp/cmd/kapp in this directory) to compare the wavekit CLI with
// it. A module of its own keeps kapp's dependencies out of wavekit's.
package kapp
