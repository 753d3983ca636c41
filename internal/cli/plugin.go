package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// pluginName is the name kubectl finds the wavekit binary under: kubectl
// runs kubectl-wavekit for "kubectl wavekit".
const pluginName = "kubectl-wavekit"

// RunAs is Run for the program invoked as program (os.Args[0]): as
// kubectl-wavekit, its usage and help say "kubectl wavekit".
func RunAs(ctx context.Context, program string, args []string, stdout, stderr io.Writer) int {
	return run(ctx, isPlugin(program), args, stdout, stderr)
}

// isPlugin tells whether program is the binary under its kubectl plugin
// name (kubectl-wavekit, kubectl-wavekit.exe).
func isPlugin(program string) bool {
	return strings.TrimSuffix(filepath.Base(program), ".exe") == pluginName
}

// asPlugin makes root name itself "kubectl wavekit" in usage and help.
func asPlugin(root *cobra.Command) {
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = "kubectl wavekit"
}

func newPluginCommand(g *globalOptions) *cobra.Command {
	plugin := &cobra.Command{
		Use:   "plugin",
		Short: "Install wavekit as a kubectl plugin (kubectl wavekit)",
		Args:  cobra.NoArgs,
	}
	var dir string
	install := &cobra.Command{
		Use:   "install [--dir DIR]",
		Short: "Link this binary as kubectl-wavekit next to kubectl, or into DIR",
		Long: `install writes kubectl-wavekit, a symbolic link to this binary (a copy where
links cannot be made), into the directory of the kubectl found on PATH, or
into --dir. kubectl then runs it for "kubectl wavekit ...", which takes
kubectl's --kubeconfig, --context and -n flags. An existing kubectl-wavekit
that is not a link to this binary is left alone, and that is an error.`,
		Example: `  wavekit plugin install
  wavekit plugin install --dir ~/.local/bin`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return installPlugin(g, dir)
		},
	}
	install.Flags().StringVar(&dir, "dir", "", "the directory to write kubectl-wavekit into (default: kubectl's)")
	plugin.AddCommand(install)
	return plugin
}

func installPlugin(g *globalOptions, dir string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this binary: %w", err)
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return fmt.Errorf("finding this binary: %w", err)
	}
	if dir == "" {
		kubectl, err := exec.LookPath("kubectl")
		if err != nil {
			return fmt.Errorf("kubectl is not on PATH: give the directory with --dir (one on PATH, for kubectl to find the plugin)")
		}
		dir = filepath.Dir(kubectl)
	}
	link := filepath.Join(dir, pluginName)
	if target, err := filepath.EvalSymlinks(link); err == nil {
		if target == self {
			fmt.Fprintf(g.stdout, "%s links to %s already\n", link, self)
			return nil
		}
		return fmt.Errorf("%s exists and is not a link to %s: remove it first", link, self)
	}
	if err := os.Symlink(self, link); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("writing %s: %w (use --dir with a directory you may write, on PATH)", link, err)
		}
		if copyErr := copyFile(self, link); copyErr != nil {
			return fmt.Errorf("linking %s: %w; copying: %w", link, err, copyErr)
		}
	}
	fmt.Fprintf(g.stdout, "installed %s -> %s; run: kubectl wavekit --help\n", link, self)
	return nil
}

// copyFile copies an executable, for systems without symbolic links.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}
