package helmcli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// CLI is a helm binary and the home it runs in.
type CLI struct {
	// Bin is the helm binary, Home the directory of its configuration,
	// cache and data.
	Bin, Home string
}

// Build builds helm.sh/helm/v3/cmd/helm at the version of wavekit's go.mod
// into dir, with its home under dir.
func Build(dir string) (*CLI, error) {
	bin := filepath.Join(dir, "helm")
	cmd := exec.Command("go", "build", "-o", bin, "helm.sh/helm/v3/cmd/helm")
	cmd.Dir = testcluster.ModuleRoot()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building helm: %w: %s", err, out)
	}
	return &CLI{Bin: bin, Home: filepath.Join(dir, "home")}, nil
}

// Run runs helm with args in workdir and returns its standard output, or
// an error holding the message helm printed.
func (c *CLI) Run(workdir string, args ...string) (string, error) {
	cmd := exec.Command(c.Bin, args...)
	cmd.Dir = workdir
	cmd.Env = append(os.Environ(),
		"HELM_CONFIG_HOME="+filepath.Join(c.Home, "config"),
		"HELM_CACHE_HOME="+filepath.Join(c.Home, "cache"),
		"HELM_DATA_HOME="+filepath.Join(c.Home, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("helm %s: %s", strings.Join(args, " "), Message(stderr.String()))
	}
	return stdout.String(), nil
}

// Message returns what helm printed after "Error: ", without the CLI's
// hint about --debug.
func Message(stderr string) string {
	_, msg, found := strings.Cut(stderr, "Error: ")
	if !found {
		return strings.TrimSpace(stderr)
	}
	msg, _, _ = strings.Cut(msg, "\n\nUse --debug flag")
	return strings.TrimSpace(msg)
}
