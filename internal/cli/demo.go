package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/wavekit-dev/wavekit/internal/demo"
)

func newDemoCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the demo: a component applied and deleted wave by wave on a local cluster",
		Long: "demo runs wavekit on a local cluster of this machine (no container engine needed)\n" +
			"in these steps, and announces each in these words as it comes to it:\n\n" + demo.Help(80) +
			"\nEverything is stopped at the end. The exit code is 0 only if every step behaved\nas described.",
		Example:       `  wavekit demo`,
		Args:          cobra.NoArgs,
		PreRunE:       refuseClusterFlags,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			width := 0
			if f, ok := cmd.OutOrStdout().(*os.File); ok && term.IsTerminal(int(f.Fd())) {
				if w, _, err := term.GetSize(int(f.Fd())); err == nil {
					width = w
				}
			}
			return demo.Run(cmd.Context(), cmd.OutOrStdout(), width)
		},
	}
	// The demo brings its own cluster: its help lists none of the global
	// flags that choose one.
	cmd.SetUsageTemplate(strings.Replace(cmd.UsageTemplate(), "{{if .HasAvailableInheritedFlags}}", "{{if false}}", 1))
	return cmd
}

// refuseClusterFlags fails when a global flag was given to the demo: it
// starts a local control plane of its own, and its operator name and
// namespaces are fixed, so those flags would be silently ignored.
func refuseClusterFlags(cmd *cobra.Command, _ []string) error {
	var given []string
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			given = append(given, "--"+f.Name)
		}
	})
	if len(given) > 0 {
		return fmt.Errorf("demo starts a local control plane of its own and takes no %s", strings.Join(given, ", "))
	}
	return nil
}
