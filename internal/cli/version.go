package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/version"
)

func newVersionCommand(s *session.Session) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the versions of wavekit (v0.0.0 for a development build), Go and the Kubernetes it is built against",
		Args:  session.ExactArgs(""),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(s.Stdout, "wavekit %s\ngo %s\nkubernetes %s\n", version.String(), runtime.Version(), version.Kubernetes)
			return err
		},
	}
}
