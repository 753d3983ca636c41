// Package release_test checks what a release ships as a user checks it:
// the images `make dist` builds, signed with a release key by `hack/release
// sign`, pushed with `hack/image push` to a registry started by the test,
// verified by cosign (built from the Go module proxy by hack/cosign.sh) with
// the public key alone; the charts' provenance files verified by `helm
// verify`; and tampered copies of each refused.
package release_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/helmcli"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

var (
	root = testcluster.ModuleRoot()
	// tools holds the binaries the suite runs: cosign and the release
	// commands of hack/.
	tools = map[string]string{}
	// helm is the helm CLI of go.mod's Helm, in a home of its own.
	helm *helmcli.CLI
)

func TestRelease(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "release signing")
}

var _ = BeforeSuite(func() {
	dir := GinkgoT().TempDir()
	cosign := exec.Command("bash", filepath.Join(root, "hack", "cosign.sh"))
	cosign.Stderr = GinkgoWriter
	out, err := cosign.Output()
	Expect(err).NotTo(HaveOccurred(), "building cosign")
	tools["cosign"] = strings.TrimSpace(string(out))
	helm, err = helmcli.Build(dir)
	Expect(err).NotTo(HaveOccurred())
	for name, pkg := range map[string]string{"release": "./hack/release", "image": "./hack/image"} {
		tools[name] = filepath.Join(dir, name)
		build := exec.Command("go", "build", "-o", tools[name], pkg)
		build.Dir = root
		build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "building %s:\n%s", pkg, out)
	}
})

// run runs one of the tools (or helm) with env added to the suite's
// environment and returns its output; stderr is part of the error.
func run(env []string, tool string, args ...string) (string, error) {
	if tool == "helm" {
		return helm.Run(root, args...)
	}
	cmd := exec.Command(tools[tool], args...)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "DOCKER_CONFIG="+emptyDockerConfig()), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w: %s%s", tool, strings.Join(args, " "), err, stderr.String(), stdout.String())
	}
	return stdout.String() + stderr.String(), nil
}

var dockerConfig string

// emptyDockerConfig is a directory with no registry credentials, so that
// nothing of the machine's logins is used.
func emptyDockerConfig() string {
	if dockerConfig == "" {
		dockerConfig = GinkgoT().TempDir()
	}
	return dockerConfig
}
