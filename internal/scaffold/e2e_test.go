package scaffold_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/scaffold"
	"github.com/wavekit-dev/wavekit/internal/testenv"
)

// The end-to-end test scaffolds a project that replaces wavekit with this
// checkout and runs what its README tells a user to run: make generate
// manifests, go build, make test (its envtest suite creates the sample and
// waits for Ready). It runs offline (GOPROXY=off): every module must be in
// the module cache already, as it is once wavekit's own tests have built.
// The first run compiles the project's dependencies and takes minutes;
// go test -short skips it.
var _ = Describe("a scaffolded project", Label("e2e"), Ordered, func() {
	BeforeAll(func() {
		if testing.Short() {
			Skip("end-to-end scaffold test skipped with -short")
		}
	})

	DescribeTable("generates, builds and passes its own tests offline",
		func(generator string) {
			dir := filepath.Join(GinkgoT().TempDir(), generator+"-operator")
			opts := scaffold.Options{
				Module: "example.com/e2e/" + generator + "-operator", Group: "e2e.wavekit.dev",
				Kind: "Guestbook", Generator: generator, WavekitReplace: testenv.ModuleRoot(),
			}
			_, err := scaffold.Generate(dir, opts)
			Expect(err).NotTo(HaveOccurred())

			run(dir, "make", "generate", "manifests")
			Expect(filepath.Join(dir, "config", "crd", "bases", "e2e.wavekit.dev_guestbooks.yaml")).To(BeAnExistingFile())
			Expect(filepath.Join(dir, "config", "chart", "crds", "e2e.wavekit.dev_guestbooks.yaml")).To(BeAnExistingFile())
			expectRoleCovers(filepath.Join(dir, "config", "rbac", "role.yaml"))
			expectRoleCovers(filepath.Join(dir, "config", "chart", "templates", "rbac.yaml"))
			run(dir, "go", "build", "./...")
			out := run(dir, "make", "test")
			Expect(out).To(MatchRegexp(`ok\s+example.com/e2e/` + generator + `-operator/pkg/operator`))
		},
		Entry("helm", "helm"),
		Entry("template", "template"),
	)
})

// expectRoleCovers checks that a generated role grants what the operator
// needs besides its own kind (CRDs to read, namespaces to create and release)
// and every kind the sample renders (a ConfigMap and a ServiceAccount).
func expectRoleCovers(path string) {
	GinkgoHelper()
	role, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	for _, resource := range []string{"customresourcedefinitions", "namespaces", "configmaps", "serviceaccounts", "leases"} {
		Expect(string(role)).To(ContainSubstring(resource), "%s grants nothing on %s", path, resource)
	}
}

// run runs a command in dir offline and returns its output; a failure shows
// the end of that output.
func run(dir, name string, args ...string) string {
	GinkgoHelper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = offlineEnv()
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	GinkgoWriter.Printf("%s %s in %s: %s\n", name, strings.Join(args, " "), dir, time.Since(start).Round(time.Second))
	Expect(err).NotTo(HaveOccurred(), "%s %s failed:\n%s", name, strings.Join(args, " "), tail(out.String(), 6000))
	return out.String()
}

// offlineEnv is the environment without module downloads; the project's
// Makefile finds the control plane through wavekit's hack/control-plane.sh.
func offlineEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		key, _, _ := strings.Cut(kv, "=")
		switch key {
		case "GOPROXY", "GOFLAGS", "GOTOOLCHAIN", "KUBEBUILDER_ASSETS", "MAKEFLAGS", "MAKELEVEL":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("...%s", s[len(s)-n:])
}
