package cli_test

import (
	"bytes"
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/cli"
)

var _ = Describe("wavekit demo", func() {
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := cli.Run(context.Background(), args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	It("refuses the global flags it would ignore, before starting anything", func() {
		code, stdout, stderr := run("demo", "--kubeconfig", "/nowhere", "-n", "team-a", "--operator-name", "acme.io")
		Expect(code).To(Equal(1))
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(Equal("error: demo starts a local control plane of its own and takes no --kubeconfig, --namespace, --operator-name\n"))
	})

	It("lists none of them in its help", func() {
		code, stdout, _ := run("demo", "--help")
		Expect(code).To(Equal(0))
		Expect(stdout).To(ContainSubstring("wavekit demo"))
		Expect(stdout).NotTo(ContainSubstring("--kubeconfig"))
		Expect(stdout).NotTo(ContainSubstring("Global Flags"))
	})
})
