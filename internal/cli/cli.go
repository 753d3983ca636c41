package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/errlines"
	"github.com/wavekit-dev/wavekit/internal/version"
)

// ExitError ends a command with a given exit code; Err, when set, is printed
// as the error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit code %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// errorExitCode is the annotation of a command whose errors exit with
// another code than 1 (diff: 2, since 1 means "changes").
const errorExitCode = "wavekit.dev/error-exit-code"

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
	if usageFailed(err) || cmd != nil && cmd.Annotations[errorExitCode] == "2" {
		code = 2
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		code = exit.Code
		if exit.Err == nil {
			return code
		}
	}
	errlines.Write(stderr, "error: ", withUsageHint(err))
	return code
}

// exactArgs requires the positional arguments named in usage, e.g. "NAME SOURCE".
func exactArgs(usage string) cobra.PositionalArgs {
	want := len(strings.Fields(usage))
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != want && want == 0 {
			return fmt.Errorf("%s takes no arguments, got %d (see wavekit %s --help)", cmd.Name(), len(args), cmd.Name())
		}
		if len(args) != want {
			return fmt.Errorf("%s needs %s, got %d arguments (see wavekit %s --help)", cmd.Name(), usage, len(args), cmd.Name())
		}
		return nil
	}
}

// NewRootCommand returns the wavekit command with its subcommands.
func NewRootCommand(stdout, stderr io.Writer) *cobra.Command {
	g := &globalOptions{stdout: stdout, stderr: stderr}
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
	root.SetVersionTemplate(fmt.Sprintf("wavekit {{.Version}}\ngo %s\nkubernetes %s\n", runtime.Version(), BuiltKubeVersion))
	root.SetOut(stdout)
	root.SetErr(stderr)
	g.addFlags(root)
	root.AddCommand(
		newRenderCommand(g),
		newDiffCommand(g),
		newApplyCommand(g),
		newDeleteCommand(g),
		newStatusCommand(g),
		newListCommand(g),
		newHistoryCommand(g),
		newRollbackCommand(g),
		newTestCommand(g),
		newGetCommand(g),
		newTreeCommand(g),
		newDashboardCommand(g),
		newSuspendCommand(g, true),
		newSuspendCommand(g, false),
		newReconcileCommand(g),
		newAlertCommand(g),
		newPluginCommand(g),
		newClusterCommand(g),
		newDemoCommand(),
		newScaffoldCommand(g),
		newVersionCommand(g),
	)
	checkUsage(root)
	return root
}
