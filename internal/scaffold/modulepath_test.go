package scaffold_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// --module accepts what `go mod init` accepts and says what it says about
// the rest; each case runs go mod init in an empty directory (offline).
var _ = Describe("--module", func() {
	DescribeTable("is checked exactly as go mod init checks a module path",
		func(path string) {
			goErr := goModInit(path)
			opts := validOptions()
			opts.Module = path
			err := opts.Validate()
			if goErr == "" {
				Expect(err).NotTo(HaveOccurred(), "go mod init %s accepts it", path)
				return
			}
			Expect(err).To(HaveOccurred(), "go mod init %s says: %s", path, goErr)
			got, found := strings.CutPrefix(err.Error(), "--module: ")
			Expect(found).To(BeTrue(), "the error names --module: %s", err)
			// go's wording; where go says more on a second line (a suggestion)
			// or nothing after the colon, ours says it on the same line.
			first, rest, _ := strings.Cut(goErr, "\n")
			Expect(got).To(HavePrefix(strings.TrimSuffix(strings.TrimSpace(first), ":")))
			if suggestion, ok := strings.CutPrefix(strings.TrimSpace(rest), "go mod init "); ok {
				Expect(got).To(HaveSuffix("(e.g. %s)", suggestion))
			} else if !strings.HasSuffix(first, ": ") {
				Expect(got).To(Equal(first))
			}
		},
		// accepted
		Entry(nil, "github.com/acme/redis-operator"),
		Entry(nil, "example.com/acme/redis-operator/v2"),
		Entry(nil, "redis-operator"),
		Entry(nil, "example"),
		Entry(nil, "GitHub.com/Acme/Op"),
		Entry(nil, "example.com/a~b_c.d-e"),
		Entry(nil, "example.com/a+b"),
		Entry(nil, "gopkg.in/yaml.v3"),
		Entry(nil, "example.com/foo/v2.1"),
		Entry(nil, "example.com/foo.v1"),
		// rejected
		Entry(nil, "Example Com/x y"),
		Entry(nil, "example.com/../x"),
		Entry(nil, "./local"),
		Entry(nil, "../up"),
		Entry(nil, "."),
		Entry(nil, "/abs/path"),
		Entry(nil, "example.com/"),
		Entry(nil, "example.com//x"),
		Entry(nil, "-dash"),
		Entry(nil, "example.com/-dash"),
		Entry(nil, ".example.com/x"),
		Entry(nil, "example.com/x."),
		Entry(nil, "example.com/a@v1"),
		Entry(nil, `example.com\x`),
		Entry(nil, "example.com/con"),
		Entry(nil, "example.com/foo~1"),
		Entry(nil, "café.example/x"),
		Entry(nil, "example.com/foo/v1"),
		Entry(nil, "example.com/foo/v0"),
		Entry(nil, "example.com/foo/v01"),
		Entry(nil, "gopkg.in/yaml"),
		Entry(nil, "gopkg.in/yaml.v"),
		Entry(nil, "go"),
		Entry(nil, "toolchain"),
	)
})

// goModInit runs `go mod init path` in an empty directory and returns what
// it says on failure without its "go: " prefix, or "" when it succeeds.
func goModInit(path string) string {
	GinkgoHelper()
	cmd := exec.Command("go", "mod", "init", "--", path)
	cmd.Dir = GinkgoT().TempDir()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=", "GOWORK=off", "GO111MODULE=on", "GOPROXY=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		return ""
	}
	Expect(stderr.String()).To(HavePrefix("go: "), "go mod init %s failed without a message", path)
	return strings.TrimPrefix(stderr.String(), "go: ")
}
