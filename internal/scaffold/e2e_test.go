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

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The end-to-end test does what a user does with a wavekit built from a
// checkout: it builds the CLI (go build ./cmd/wavekit), runs the default
// `wavekit scaffold` (no --wavekit-replace, no --wavekit-version), which
// replaces wavekit with this checkout by itself, and runs what the project's
// README tells a user to run: make test (make generate manifests, go vet,
// and its suite on pkg/testenv's cluster that creates the sample and waits
// for Ready and its Deployment Available) and
// go build. It runs offline (GOPROXY=off) with go's default -mod=readonly, so
// the scaffolded go.sum must be complete: every module must be in the module
// cache already, as it is once wavekit's own tests have built. The first run
// compiles the project's dependencies and takes minutes; go test -short
// skips it.
var _ = Describe("a scaffolded project", Label("e2e"), Ordered, func() {
	var wavekit string

	BeforeAll(func() {
		if testing.Short() {
			Skip("end-to-end scaffold test skipped with -short")
		}
		wavekit = filepath.Join(GinkgoT().TempDir(), "wavekit")
		// Without a symbol table and DWARF the link costs a third less; the
		// source paths the binary records for itself stay.
		run(testcluster.ModuleRoot(), "go", "build", "-ldflags=-s -w", "-o", wavekit, "./cmd/wavekit")
	})

	DescribeTable("scaffolded by default from a checkout build, builds and passes its own tests offline",
		func(generator string) {
			parent := GinkgoT().TempDir()
			name := generator + "-operator"
			out := run(parent, wavekit, "scaffold", name, "--module", "example.com/e2e/"+name,
				"--group", "e2e.wavekit.dev", "--kind", "Guestbook", "--generator", generator)
			Expect(out).To(ContainSubstring("so go.mod replaces github.com/wavekit-dev/wavekit with its checkout %s;", testcluster.ModuleRoot()))
			Expect(out).To(ContainSubstring("next: cd %s && make generate manifests test\n", name))
			dir := filepath.Join(parent, name)

			// make test is make generate manifests vet, then the tests.
			out = run(dir, "make", "test")
			Expect(out).To(ContainSubstring("go vet ./..."))
			Expect(out).To(MatchRegexp(`ok\s+example.com/e2e/` + name + `/pkg/operator`))
			Expect(filepath.Join(dir, "config", "crd", "bases", "e2e.wavekit.dev_guestbooks.yaml")).To(BeAnExistingFile())
			Expect(filepath.Join(dir, "config", "chart", "crds", "e2e.wavekit.dev_guestbooks.yaml")).To(BeAnExistingFile())
			expectRoleCovers(filepath.Join(dir, "config", "rbac", "role.yaml"), "tokenreviews", "subjectaccessreviews")
			expectRoleCovers(filepath.Join(dir, "config", "chart", "templates", "rbac.yaml"))
			run(dir, "go", "build", "./...")
		},
		Entry("helm", "helm"),
		Entry("template", "template"),
	)
})

// expectRoleCovers checks that a generated role grants what the operator
// needs besides its own kind (CRDs to read, namespaces to create and release)
// and every kind the sample renders (a ServiceAccount, a ConfigMap and a
// Deployment), and
// the extra resources named.
func expectRoleCovers(path string, extra ...string) {
	GinkgoHelper()
	role, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	for _, resource := range append([]string{"customresourcedefinitions", "namespaces", "configmaps", "serviceaccounts", "deployments", "leases"}, extra...) {
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

// offlineEnv is the environment without module downloads and with go's
// default -mod=readonly; the project's Makefile finds the control plane
// through wavekit's hack/control-plane.sh.
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
	return append(env, "GOPROXY=off", "GOTOOLCHAIN=local")
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("...%s", s[len(s)-n:])
}
