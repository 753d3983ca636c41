package cli_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("diff", func() {
	It("shows what apply would create, then nothing, then an out-of-band edit", func() {
		ns := newNamespace()
		r := wavekit("diff", "demo", "testdata/web", "-n", ns)
		Expect(r.code).To(Equal(1), r.stderr)
		Expect(r.stdout).To(ContainSubstring("+ create ConfigMap " + ns + "/demo-config\n"))
		Expect(r.stdout).To(ContainSubstring("+  greeting: hello\n"))
		Expect(r.stdout).To(HaveSuffix("Summary: 2 to create, 0 to update, 0 to delete, 0 unchanged\n"))
		Expect(configMap(ns, "demo-config")).To(BeNil(), "a dry run creates nothing")

		succeeds("apply", "demo", "testdata/web", "-n", ns)
		Expect(succeeds("diff", "demo", "testdata/web", "-n", ns)).To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 2 unchanged\n"))

		cm := configMap(ns, "demo-config")
		cm.Data["greeting"] = "edited"
		Expect(env.Client.Update(context.Background(), cm)).To(Succeed())
		r = wavekit("diff", "demo", "testdata/web", "-n", ns)
		Expect(r.code).To(Equal(1), r.stderr)
		Expect(r.stdout).To(ContainSubstring("~ update ConfigMap " + ns + "/demo-config\n--- live\n+++ rendered\n"))
		Expect(r.stdout).To(ContainSubstring("-  greeting: edited\n+  greeting: hello\n"))
		Expect(r.stdout).NotTo(ContainSubstring("demo-app"))
		Expect(r.stdout).To(HaveSuffix("Summary: 0 to create, 1 to update, 0 to delete, 1 unchanged\n"))
		Expect(configMap(ns, "demo-config").Data).To(HaveKeyWithValue("greeting", "edited"))
	})

	It("lists the objects that left the manifests as deletions", func() {
		ns := newNamespace()
		succeeds("apply", "demo", "testdata/web", "-n", ns, "-f", "testdata/values.yaml")
		r := wavekit("diff", "demo", "testdata/web", "-n", ns)
		Expect(r.code).To(Equal(1), r.stderr)
		Expect(r.stdout).To(ContainSubstring("- delete ConfigMap " + ns + "/demo-extra\n"))
		Expect(r.stdout).To(ContainSubstring("-  extra: \"true\"\n"))
		Expect(r.stdout).To(HaveSuffix("Summary: 0 to create, 1 to update, 1 to delete, 1 unchanged\n"))
	})

	It("exits with 2 on an error", func() {
		r := wavekit("diff", "demo", "testdata/missing")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(Equal("error: source testdata/missing: no such directory\n"))
	})
})
