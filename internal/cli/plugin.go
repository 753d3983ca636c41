package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
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

func newPluginCommand(s *session.Session) *cobra.Command {
	plugin := &cobra.Command{
		Use:   "plugin",
		Short: "Install wavekit as a kubectl plugin (kubectl wavekit), or remove it",
		Args:  cobra.NoArgs,
	}
	install := pluginVerb(s, installPlugin, "install", "the directory to write kubectl-wavekit into (default: kubectl's)", "Link this binary as kubectl-wavekit next to kubectl, or into DIR",
		`install writes kubectl-wavekit, a symbolic link to this binary (a copy where
links cannot be made), into the directory of the kubectl found on PATH, or
into --dir, and says where before it writes. kubectl then runs it for
"kubectl wavekit ...", which takes kubectl's --kubeconfig, --context and -n
flags; a --dir that is not on PATH is said so, since kubectl finds plugins
only there. An existing kubectl-wavekit that is not a link to this binary is
left alone, and that is an error.`)
	uninstall := pluginVerb(s, uninstallPlugin, "uninstall", "the directory to remove kubectl-wavekit from (default: kubectl's)", "Remove the kubectl-wavekit that plugin install wrote",
		`uninstall removes kubectl-wavekit from the directory of the kubectl found on
PATH, or from --dir, if it is what plugin install writes: a link to this
binary, or a copy of it. Anything else under that name is left alone, and
that is an error, as is no kubectl-wavekit at all.`)
	plugin.AddCommand(install, uninstall)
	return plugin
}

// pluginVerb is plugin install or uninstall: run with the --dir flag.
func pluginVerb(s *session.Session, run func(*session.Session, string) error, verb, dirUsage, short, long string) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:     verb + " [--dir DIR]",
		Short:   short,
		Long:    long,
		Example: fmt.Sprintf("  wavekit plugin %s\n  wavekit plugin %s --dir ~/.local/bin", verb, verb),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(s, dir)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", dirUsage)
	return cmd
}

// selfAndPluginDir returns this binary (links resolved) and the directory
// of the plugin: dir, which must exist, or that of the kubectl on PATH, and
// why it was chosen, for messages.
func selfAndPluginDir(dir string) (self, pluginDir, why string, err error) {
	if self, err = os.Executable(); err != nil {
		return "", "", "", fmt.Errorf("finding this binary: %w", err)
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return "", "", "", fmt.Errorf("finding this binary: %w", err)
	}
	if dir != "" {
		info, err := os.Stat(dir)
		if err != nil || !info.IsDir() {
			return "", "", "", fmt.Errorf("--dir %s: no such directory", dir)
		}
		return self, dir, "", nil
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		return "", "", "", fmt.Errorf("kubectl is not on PATH: give the directory with --dir (one on PATH, for kubectl to find the plugin)")
	}
	return self, filepath.Dir(kubectl), fmt.Sprintf(", the directory of %s (--dir chooses another)", kubectl), nil
}

func installPlugin(s *session.Session, dir string) error {
	self, dir, why, err := selfAndPluginDir(dir)
	if err != nil {
		return err
	}
	link := filepath.Join(dir, pluginName)
	if target, err := filepath.EvalSymlinks(link); err == nil {
		if target == self {
			fmt.Fprintf(s.Stdout, "%s links to %s already\n", link, self)
			return nil
		}
		return fmt.Errorf("%s exists and is not a link to %s: remove it first", link, self)
	}
	fmt.Fprintf(s.Stdout, "writing %s into %s%s\n", pluginName, dir, why)
	if err := os.Symlink(self, link); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("writing %s: %w (use --dir with a directory you may write, on PATH)", link, err)
		}
		if copyErr := copyFile(self, link); copyErr != nil {
			return fmt.Errorf("linking %s: %w; copying: %w", link, err, copyErr)
		}
	}
	fmt.Fprintf(s.Stdout, "installed %s -> %s; run: kubectl wavekit --help\n", link, self)
	if !onPath(dir) {
		fmt.Fprintf(s.Stdout, "%s is not on PATH: kubectl finds plugins only there; add it, or install with --dir DIR on PATH\n", dir)
	}
	return nil
}

func uninstallPlugin(s *session.Session, dir string) error {
	self, dir, _, err := selfAndPluginDir(dir)
	if err != nil {
		return err
	}
	link := filepath.Join(dir, pluginName)
	if _, err := os.Lstat(link); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no %s in %s: nothing to remove", pluginName, dir)
	}
	if !isLinkOrCopyOf(link, self) {
		return fmt.Errorf("%s is neither a link to %s nor a copy of it: left alone", link, self)
	}
	if err := os.Remove(link); err != nil {
		return fmt.Errorf("removing %s: %w", link, err)
	}
	fmt.Fprintf(s.Stdout, "removed %s\n", link)
	return nil
}

// isLinkOrCopyOf reports whether path is what installPlugin writes for
// self: a link that resolves to it, or a file of the same content.
func isLinkOrCopyOf(path, self string) bool {
	if target, err := filepath.EvalSymlinks(path); err == nil && target == self {
		return true
	}
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
		return false
	}
	mine, err := os.ReadFile(self)
	if err != nil {
		return false
	}
	theirs, err := os.ReadFile(path)
	return err == nil && bytes.Equal(mine, theirs)
}

// onPath reports whether dir is one of the directories of PATH.
func onPath(dir string) bool {
	clean, _ := filepath.Abs(dir)
	for _, entry := range filepath.SplitList(os.Getenv("PATH")) {
		if abs, err := filepath.Abs(entry); err == nil && abs == clean {
			return true
		}
	}
	return false
}

// copyFile copies an executable, for systems without symbolic links.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}
