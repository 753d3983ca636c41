// Command standin stands in for the operator in the image specs: it answers
// --version as the operator does, with the version the build stamps, and
// compiles in seconds where the operator takes minutes a platform.
package main

import (
	"flag"
	"fmt"

	"github.com/wavekit-dev/wavekit/internal/version"
)

func main() {
	printVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *printVersion {
		fmt.Println("component-operator", version.String())
	}
}
