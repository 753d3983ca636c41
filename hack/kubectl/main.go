// Command kubectl is kubectl, which `make bench` builds from the Go module
// proxy to compare the wavekit CLI with it. A module of its own keeps
// kubectl's dependencies out of wavekit's.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
)

func main() {
	os.Exit(cli.Run(cmd.NewDefaultKubectlCommand()))
}
