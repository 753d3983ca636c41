package operatortest

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/onsi/gomega/gexec"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/pkg/testenv"
)

// Operator is the operator binary as a suite runs it: as one identity (the
// chart's ServiceAccount, see ServiceAccountConfig), through a kubeconfig of
// its own, with its metrics and health probes off unless Args turn them on.
type Operator struct {
	// Binary is the operator built by BuildOperator.
	Binary string
	// Config is the identity it runs with.
	Config *rest.Config
	// Dir is where its kubeconfig is written.
	Dir string
	// Args come after the defaults; a flag given again there wins.
	Args []string
	// Env is added to the test's own environment.
	Env []string
	// Out receives its standard output and error.
	Out io.Writer
}

// Start writes the kubeconfig and starts the binary. The caller stops the
// session.
func (o Operator) Start() (*gexec.Session, error) {
	kubeconfig := filepath.Join(o.Dir, "kubeconfig")
	if err := testenv.WriteKubeconfig(o.Config, kubeconfig); err != nil {
		return nil, err
	}
	args := append([]string{"--kubeconfig", kubeconfig,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0"}, o.Args...)
	cmd := exec.Command(o.Binary, args...)
	cmd.Env = append(os.Environ(), o.Env...)
	session, err := gexec.Start(cmd, o.Out, o.Out)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", o.Binary, err)
	}
	return session, nil
}
