// Command agentstandin stands in for the wavekit CLI in the agent image's
// specs: it answers the image's default command, agent run --help, with the
// usage line the CLI prints, and version with the version the build stamps,
// and compiles in seconds where the CLI takes minutes a platform.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/wavekit-dev/wavekit/internal/version"
)

func main() {
	switch strings.Join(os.Args[1:], " ") {
	case "agent run --help":
		fmt.Println("Usage:\n  wavekit agent run [flags]")
	case "version":
		fmt.Println("wavekit", version.String())
	default:
		fmt.Fprintln(os.Stderr, "agentstandin: unknown command")
		os.Exit(2)
	}
}
