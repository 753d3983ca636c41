package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/version"
)

// BuiltKubeVersion is the Kubernetes version wavekit is built against (its
// k8s.io/client-go v0.37.1 is Kubernetes 1.37.1): what render assumes for
// Helm's .Capabilities when it renders without a cluster. A test checks it
// against go.mod.
const BuiltKubeVersion = "1.37.1"

func newVersionCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the versions of wavekit (v0.0.0 for a development build), Go and the Kubernetes it is built against",
		Args:  exactArgs(""),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(g.stdout, "wavekit %s\ngo %s\nkubernetes %s\n", version.String(), runtime.Version(), BuiltKubeVersion)
			return err
		},
	}
}
