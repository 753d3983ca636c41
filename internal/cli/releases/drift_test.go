package releases_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

var _ = Describe("apply's drift flags", func() {
	edit := func(ns, name, key, value string) {
		GinkgoHelper()
		cm := clitest.ConfigMap(ns, name)
		cm.Data[key] = value
		Expect(clitest.Env.Client.Update(context.Background(), cm)).To(Succeed())
	}

	It("keeps the drift mode and ignore rules in the release, warns of drift in mode Warn, and status lists it", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "drifty", "../testdata/web", "-n", ns, "--drift-mode", "Warn", "--drift-ignore", "ConfigMap/drifty-app=/data/config")
		edit(ns, "drifty-config", "greeting", "edited")
		edit(ns, "drifty-app", "config", "edited")

		r := clitest.Wavekit("apply", "drifty", "../testdata/web", "-n", ns) // the release keeps the flags of the last apply
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stderr).To(Equal("warning: ConfigMap " + ns + "/drifty-config drifted and is left as it is (drift mode Warn): /data/greeting\n"))
		Expect(clitest.ConfigMap(ns, "drifty-config").Data).To(HaveKeyWithValue("greeting", "edited"))
		Expect(clitest.Succeeds("status", "drifty", "-n", ns)).To(HaveSuffix(
			"\nDrifted at the last apply (left as they are, drift mode Warn):\n  ConfigMap " + ns + "/drifty-config: /data/greeting\n"))

		r = clitest.Wavekit("apply", "drifty", "../testdata/web", "-n", ns, "--drift-mode", "Correct")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stderr).To(BeEmpty())
		Expect(clitest.ConfigMap(ns, "drifty-config").Data).To(HaveKeyWithValue("greeting", "hello"), "corrected")
		Expect(clitest.ConfigMap(ns, "drifty-app").Data).To(HaveKeyWithValue("config", "edited"), "still ignored")
		Expect(clitest.Succeeds("status", "drifty", "-n", ns)).NotTo(ContainSubstring("Drifted"))
		Expect(clitest.Succeeds("diff", "drifty", "../testdata/web", "-n", ns)).To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 2 unchanged\n"),
			"diff compares as apply does: the ignored field is no change")
		clitest.Succeeds("apply", "drifty", "../testdata/web", "-n", ns, "--drift-ignore", "")
		Expect(clitest.ConfigMap(ns, "drifty-app").Data).To(HaveKeyWithValue("config", "drifty-config"), "the rules are cleared: corrected")
	})

	It("refuses a rule that is no JSON pointer before anything is written", func() {
		ns := clitest.NewNamespace()
		r := clitest.Wavekit("apply", "bad", "../testdata/web", "-n", ns, "--drift-ignore", "Deployment.apps/web=spec/replicas")
		Expect(r.Code).NotTo(Equal(0))
		Expect(r.Stderr).To(ContainSubstring(`--drift-ignore "Deployment.apps/web=spec/replicas": JSON pointer "spec/replicas" does not start with /`))
		Expect(clitest.InventorySecret(ns, "bad")).To(BeNil())
		Expect(clitest.ConfigMap(ns, "bad-config")).To(BeNil())
	})
})
