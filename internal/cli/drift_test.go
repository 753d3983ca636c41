package cli_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("apply's drift flags", func() {
	edit := func(ns, name, key, value string) {
		GinkgoHelper()
		cm := configMap(ns, name)
		cm.Data[key] = value
		Expect(env.Client.Update(context.Background(), cm)).To(Succeed())
	}

	It("keeps the drift mode and ignore rules in the release, warns of drift in mode Warn, and status lists it", func() {
		ns := newNamespace()
		succeeds("apply", "drifty", "testdata/web", "-n", ns, "--drift-mode", "Warn", "--drift-ignore", "ConfigMap/drifty-app=/data/config")
		edit(ns, "drifty-config", "greeting", "edited")
		edit(ns, "drifty-app", "config", "edited")

		r := wavekit("apply", "drifty", "testdata/web", "-n", ns) // the release keeps the flags of the last apply
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stderr).To(Equal("warning: ConfigMap " + ns + "/drifty-config drifted and is left as it is (drift mode Warn): /data/greeting\n"))
		Expect(configMap(ns, "drifty-config").Data).To(HaveKeyWithValue("greeting", "edited"))
		Expect(succeeds("status", "drifty", "-n", ns)).To(HaveSuffix(
			"\nDrifted at the last apply (left as they are, drift mode Warn):\n  ConfigMap " + ns + "/drifty-config: /data/greeting\n"))

		r = wavekit("apply", "drifty", "testdata/web", "-n", ns, "--drift-mode", "Correct")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stderr).To(BeEmpty())
		Expect(configMap(ns, "drifty-config").Data).To(HaveKeyWithValue("greeting", "hello"), "corrected")
		Expect(configMap(ns, "drifty-app").Data).To(HaveKeyWithValue("config", "edited"), "still ignored")
		Expect(succeeds("status", "drifty", "-n", ns)).NotTo(ContainSubstring("Drifted"))
		Expect(succeeds("diff", "drifty", "testdata/web", "-n", ns)).To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 2 unchanged\n"),
			"diff compares as apply does: the ignored field is no change")

		succeeds("apply", "drifty", "testdata/web", "-n", ns, "--drift-ignore", "")
		Expect(configMap(ns, "drifty-app").Data).To(HaveKeyWithValue("config", "drifty-config"), "the rules are cleared: corrected")
	})

	It("refuses a rule that is no JSON pointer before anything is written", func() {
		ns := newNamespace()
		r := wavekit("apply", "bad", "testdata/web", "-n", ns, "--drift-ignore", "Deployment.apps/web=spec/replicas")
		Expect(r.code).NotTo(Equal(0))
		Expect(r.stderr).To(ContainSubstring(`--drift-ignore "Deployment.apps/web=spec/replicas": JSON pointer "spec/replicas" does not start with /`))
		Expect(inventorySecret(ns, "bad")).To(BeNil())
		Expect(configMap(ns, "bad-config")).To(BeNil())
	})
})
