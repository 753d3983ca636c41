package definitions

import (
	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
)

// NewCommand is wavekit definition and its subcommands.
func NewCommand(s *session.Session) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "definition",
		Aliases: []string{"definitions", "def"},
		Short:   "Make kinds of your own from charts and folders (ComponentDefinitions)",
		Long: `definition works with the reference operator's ComponentDefinitions: a kind of
your own (kind: Database, with its group, schema and printer columns) whose
every instance the operator installs from one chart, folder or repository, as a
Component of it would be. See docs/definitions.md.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCreateCommand(s), newRenderCommand(s), newListCommand(s))
	return cmd
}
