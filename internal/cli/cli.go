package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/cli/agents"
	"github.com/wavekit-dev/wavekit/internal/cli/alert"
	"github.com/wavekit-dev/wavekit/internal/cli/components"
	"github.com/wavekit-dev/wavekit/internal/cli/componentsets"
	"github.com/wavekit-dev/wavekit/internal/cli/definitions"
	"github.com/wavekit-dev/wavekit/internal/cli/localclusters"
	"github.com/wavekit-dev/wavekit/internal/cli/releases"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/errlines"
	"github.com/wavekit-dev/wavekit/internal/version"
)

// Run executes the wavekit command line with args (without the program
// name), writing to stdout and stderr, and returns the process exit code.
// An error is printed on stderr as "error: " and its first line, then every
// further line (each error of an errors.Join, a hint on what to do)
// indented below it.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return run(ctx, false, args, stdout, stderr)
}

// run is Run, named "kubectl wavekit" when plugin is true.
func run(ctx context.Context, plugin bool, args []string, stdout, stderr io.Writer) int {
	root := NewRootCommand(stdout, stderr)
	if plugin {
		asPlugin(root)
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	code := 1
	if usageFailed(err) || cmd != nil && cmd.Annotations[session.ErrorExitCode] == "2" {
		code = 2
	}
	var exit *session.ExitError
	if errors.As(err, &exit) {
		code = exit.Code
		if exit.Err == nil {
			return code
		}
	}
	errlines.Write(stderr, "error: ", withUsageHint(err))
	return code
}

// NewRootCommand returns the wavekit command with its subcommands, by group
// as its help lists them, every command line that does not parse refused
// (checkUsage).
func NewRootCommand(stdout, stderr io.Writer) *cobra.Command {
	s := &session.Session{Stdout: stdout, Stderr: stderr}
	root := &cobra.Command{
		Use:   "wavekit",
		Short: "Render, diff, apply and delete component manifests in waves",
		Long: `wavekit works with a component's manifests without an operator: a Helm chart,
a kustomization or a folder of Go templates (the kind is detected from the
directory). It renders them, shows what would change in the cluster, applies
them in waves with the same applier as a wavekit operator, and deletes them
again in delete waves.

A release is one installation of a source under a name in a namespace. Its
inventory lives in the Secret wavekit.<NAME> (type wavekit.dev/inventory) in
that namespace, so a second apply prunes what left the manifests.

The cluster is found as kubectl finds it: --kubeconfig, $KUBECONFIG,
~/.kube/config, with --context and --namespace.`,
		Example: `  wavekit render ./chart --set replicas=2
  wavekit diff demo ./chart -f values.yaml
  wavekit apply demo ./chart -f values.yaml --wait
  wavekit status demo
  wavekit delete demo --wait`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// Run suggests commands on a line of their own.
		DisableSuggestions:         true,
		SuggestionsMinimumDistance: 2,
	}
	// --version prints what the version command prints.
	root.Version = version.String()
	root.SetVersionTemplate(fmt.Sprintf("wavekit {{.Version}}\ngo %s\nkubernetes %s\n", runtime.Version(), version.Kubernetes))
	root.SetOut(stdout)
	root.SetErr(stderr)
	s.AddFlags(root)
	addGroup(root, "releases", "Releases, a source applied without an operator:",
		releases.NewRenderCommand(s), releaseDiff(s), releases.NewApplyCommand(s), releases.NewStatusCommand(s),
		releases.NewListCommand(s), releases.NewHistoryCommand(s), releases.NewRollbackCommand(s),
		releases.NewTestCommand(s), releases.NewDeleteCommand(s))
	get, tree := components.NewGetCommand(s), components.NewTreeCommand(s)
	componentsets.AddSetViews(s, get, tree)
	addGroup(root, "components", "Components and ComponentSets of the reference operator:",
		get, tree, components.NewSuspendCommand(s, true), components.NewSuspendCommand(s, false),
		components.NewReconcileCommand(s), components.NewDashboardCommand(s))
	addGroup(root, "definitions", "Kinds of your own, made of charts and folders (ComponentDefinitions):", definitions.NewCommand(s))
	addGroup(root, "clusters", "Local clusters:", localclusters.NewCommand(s))
	addGroup(root, "fleet", "Fleets:", agents.NewCommand(s))
	addGroup(root, "alerts", "Alerts:", alert.NewCommand(s))
	addGroup(root, "more", "More:", newDemoCommand(), newScaffoldCommand(s), newPluginCommand(s), newVersionCommand(s))
	root.SetHelpCommandGroupID("more")
	root.SetCompletionCommandGroupID("more")
	checkUsage(root)
	return root
}

// addGroup adds commands to root under a heading of its help.
func addGroup(root *cobra.Command, id, title string, commands ...*cobra.Command) {
	root.AddGroup(&cobra.Group{ID: id, Title: title})
	for _, cmd := range commands {
		cmd.GroupID = id
		root.AddCommand(cmd)
	}
}

// releaseDiff is diff, with the verbs that preview what the reference
// operator would change: diff component and diff componentset.
func releaseDiff(s *session.Session) *cobra.Command {
	diff := releases.NewDiffCommand(s)
	diff.AddCommand(components.NewDiffCommand(s), componentsets.NewDiffCommand(s))
	return diff
}
