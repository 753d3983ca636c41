package releases_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

var _ = Describe("apply --health-checks", func() {
	It("holds the next wave until the CEL check says Current, and keeps the checks in the release", func() {
		ns := clitest.NewNamespace()
		r := clitest.Wavekit("apply", "gate", "../testdata/health", "-n", ns, "--health-checks", "../testdata/health-checks.yaml")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("waiting for health check: has(self.data.ready) && self.data.ready == 'true'"))
		Expect(clitest.ConfigMap(ns, "gate-after")).To(BeNil(), "the next wave started")
		clitest.Succeeds("apply", "gate", "../testdata/health", "-n", ns, "--set", "ready=true", "--wait", "--timeout", "60s")
		Expect(clitest.ConfigMap(ns, "gate-after")).NotTo(BeNil())

		r = clitest.Wavekit("apply", "gate", "../testdata/health", "-n", ns, "--set", "ready=", "--wait", "--timeout", "3s")
		Expect(r.Code).To(Equal(1), "the checks are kept in the release: %s", r.Stdout)
		Expect(r.Stderr).To(ContainSubstring("waiting for health check"))
		Expect(clitest.Succeeds("status", "gate", "-n", ns)).To(MatchRegexp(`(?m)ConfigMap `+ns+`/gate-gate +\S+ +InProgress$`),
			"status judges as apply waits")
	})

	It("refuses checks that do not parse or compile, and writes nothing", func() {
		ns := clitest.NewNamespace()
		bad := filepath.Join(GinkgoT().TempDir(), "checks.yaml")
		Expect(os.WriteFile(bad, []byte("- apiVersion: v1\n  kind: ConfigMap\n  current: has(self.data.ready\n"), 0o600)).To(Succeed())
		r := clitest.Wavekit("apply", "gate", "../testdata/health", "-n", ns, "--health-checks", bad)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(HavePrefix(`error: health check 0 (v1 ConfigMap) current "has(self.data.ready": ERROR:`))
		Expect(clitest.ConfigMap(ns, "gate-gate")).To(BeNil())

		Expect(os.WriteFile(bad, []byte("- apiVersion: v1\n  kind: ConfigMap\n  ready: true\n"), 0o600)).To(Succeed())
		r = clitest.Wavekit("apply", "gate", "../testdata/health", "-n", ns, "--health-checks", bad)
		Expect(r.Stderr).To(ContainSubstring(`unknown field "ready"`))
	})
})
