package clitest

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// RefusesDiffInput is the body of a table of bad input to diff command
// (component, componentset): args and a file (-f; FILE: in the message is
// its path, NS/ the test's namespace) fail with exit code 2 and message.
func RefusesDiffInput(command string) func(args []string, file, message string) {
	return func(args []string, file, message string) {
		GinkgoHelper()
		ns := NewNamespace()
		if file != "" {
			path := filepath.Join(GinkgoT().TempDir(), "manifest.yaml")
			Expect(os.WriteFile(path, []byte(file), 0o600)).To(Succeed())
			args = append(args, "-f", path)
			message = strings.ReplaceAll(message, "FILE:", path+":")
		}
		message = strings.ReplaceAll(message, "NS/", ns+"/")
		r := Wavekit(append(append([]string{"diff", command, "-n", ns}, args...), "--cache-dir", GinkgoT().TempDir())...)
		Expect(r.Code).To(Equal(2), r.Stdout)
		Expect(r.Stderr).To(Equal("error: " + message + "\n"))
	}
}
