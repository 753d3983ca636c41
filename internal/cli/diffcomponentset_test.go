package cli_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The previews themselves run against several clusters in test/fleet.
var _ = Describe("diff componentset", func() {
	DescribeTable("refuses bad input with exit code 2 and says why", refusesDiffInput("componentset"),
		Entry("no set named", nil, "", "diff componentset needs NAMESPACE/NAME or -f FILE (see wavekit diff componentset --help)"),
		Entry("both a name and a file", []string{"x/y"}, "kind: ComponentSet", "diff componentset takes NAMESPACE/NAME or -f FILE, not both"),
		Entry("a set that does not exist", []string{"nowhere/missing"}, "", "ComponentSet nowhere/missing not found"),
		Entry("a file of another kind", nil, "apiVersion: wavekit.dev/v1alpha1\nkind: Component\nmetadata:\n  name: x\n",
			"FILE: holds wavekit.dev/v1alpha1 Component, not a ComponentSet of wavekit.dev/v1alpha1"),
	)
})

// refusesDiffInput is the body of a table of bad input to diff command:
// args and a file (-f; FILE: in the message is its path, NS/ the test's
// namespace) fail with exit code 2 and message.
func refusesDiffInput(command string) func(args []string, file, message string) {
	return func(args []string, file, message string) {
		ns := newNamespace()
		if file != "" {
			path := filepath.Join(GinkgoT().TempDir(), "manifest.yaml")
			Expect(os.WriteFile(path, []byte(file), 0o600)).To(Succeed())
			args = append(args, "-f", path)
			message = strings.ReplaceAll(message, "FILE:", path+":")
		}
		message = strings.ReplaceAll(message, "NS/", ns+"/")
		r := wavekit(append(append([]string{"diff", command, "-n", ns}, args...), "--cache-dir", GinkgoT().TempDir())...)
		Expect(r.code).To(Equal(2), r.stdout)
		Expect(r.stderr).To(Equal("error: " + message + "\n"))
	}
}
