package clitest

import (
	"bytes"
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/cli"
)

// Result is what one command run printed and returned.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// Wavekit runs the CLI in process against the suite's cluster.
func Wavekit(args ...string) Result {
	return WavekitWith(Kubeconfig, args...)
}

// WavekitWith runs the CLI in process with the kubeconfig config.
func WavekitWith(config string, args ...string) Result {
	return WavekitAlone(append([]string{"--kubeconfig", config}, args...)...)
}

// WavekitAlone runs the CLI without --kubeconfig, as a user would.
func WavekitAlone(args ...string) Result {
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), args, &stdout, &stderr)
	GinkgoWriter.Printf("wavekit %v -> %d\n%s%s", args, code, stdout.String(), stderr.String())
	return Result{Code: code, Stdout: stdout.String(), Stderr: stderr.String()}
}

// Succeeds runs the CLI and expects exit code 0; it returns the output.
func Succeeds(args ...string) string {
	GinkgoHelper()
	r := Wavekit(args...)
	Expect(r.Code).To(Equal(0), "stderr: %s", r.Stderr)
	return r.Stdout
}
