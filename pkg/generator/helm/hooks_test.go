package helm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
)

var _ = Describe("crds/ and hooks", func() {
	It("puts crds/ first and the hooks after the manifests, in a fixed order", func() {
		objects := render(installCtx(), load(chartPath("hooks")), nil)
		Expect(names(objects)).To(Equal([]string{
			"CustomResourceDefinition/gadgets.hooks.wavekit.dev",
			"Secret/rel-kept", "ConfigMap/rel-main", "ConfigMap/rel-ordered",
			"Secret/rel-generated", "ConfigMap/rel-post-delete", "ConfigMap/rel-explicit", "ConfigMap/rel-pre-both",
			"Pod/rel-test", "Pod/rel-test-success", "Job/rel-pre-delete", "Job/rel-post", "Job/rel-pre-install",
		}))
	})

	It("translates each hook into waves and policies on install", func() {
		objects := render(installCtx(), load(chartPath("hooks")), nil)
		expected := map[string]map[string]string{
			"CustomResourceDefinition/gadgets.hooks.wavekit.dev": {"apply-order": "-20000"},
			"Secret/rel-kept":       {"delete-policy": "orphan"},
			"ConfigMap/rel-main":    {},
			"ConfigMap/rel-ordered": {"apply-order": "7", "delete-policy": "orphan-on-delete"},
			"Secret/rel-generated": {"apply-order": "10000", "update-policy": "recreate",
				"reconcile-policy": "once", "delete-policy": "orphan"},
			"ConfigMap/rel-post-delete": {"delete-hook": "post-delete", "delete-order": "10000", "delete-policy": "orphan"},
			"ConfigMap/rel-explicit": {"apply-order": "20", "update-policy": "recreate",
				"reconcile-policy": "on-object-or-component-change"},
			"ConfigMap/rel-pre-both": {"apply-order": "-10000", "update-policy": "recreate",
				"reconcile-policy": "on-object-or-component-change"},
			"Job/rel-pre-delete": {"delete-hook": "pre-delete", "delete-order": "-9999"},
			"Job/rel-post": {"apply-order": "10003", "purge-order": "19999", "update-policy": "recreate",
				"reconcile-policy": "on-object-or-component-change"},
			"Job/rel-pre-install": {"apply-order": "-10005", "purge-order": "-1", "update-policy": "recreate",
				"reconcile-policy": "once"},
			"Pod/rel-test":         {"test-hook": "delete-on-success", "apply-order": "2"},
			"Pod/rel-test-success": {"test-hook": "keep", "apply-order": "0"},
		}
		got := map[string]map[string]string{}
		for i, obj := range objects {
			got[names(objects)[i]] = annotationsOf(obj)
		}
		Expect(got).To(Equal(expected))
	})

	It("keeps Helm's own annotations on the objects", func() {
		objects := render(installCtx(), load(chartPath("hooks")), nil)
		Expect(byName(objects, "Job", "rel-post").GetAnnotations()).To(Equal(map[string]string{
			"helm.sh/hook":               "post-install, post-upgrade",
			"helm.sh/hook-weight":        "3",
			"helm.sh/hook-delete-policy": "hook-succeeded",
			prefix + "/apply-order":      "10003",
			prefix + "/purge-order":      "19999",
			prefix + "/update-policy":    "recreate",
			prefix + "/reconcile-policy": "on-object-or-component-change",
		}))
	})

	It("adds upgrade-only hooks on upgrade and keeps install-only hooks, applied once", func() {
		objects := render(upgradeCtx(2), load(chartPath("hooks")), nil)
		Expect(names(objects)).To(ContainElements("Job/rel-migrate", "Job/rel-pre-install", "Secret/rel-generated"))
		Expect(annotationsOf(byName(objects, "Job", "rel-migrate"))).To(Equal(map[string]string{
			"apply-order": "-9998", "purge-order": "-1", "update-policy": "recreate",
			"reconcile-policy": "on-object-or-component-change",
		}))
		Expect(annotationsOf(byName(objects, "Job", "rel-pre-install"))).To(HaveKeyWithValue("reconcile-policy", "once"))
	})

	DescribeTable("keeps a hook from its first wave to the end of its last event's hooks",
		func(pre, post bool, weight int, first, last int16) {
			gotFirst, gotLast := helm.HookLifetime(pre, post, weight)
			Expect([]int16{gotFirst, gotLast}).To(Equal([]int16{first, last}))
		},
		Entry("pre, weight 0: gone after the last pre hook", true, false, 0, int16(-10000), int16(-1)),
		Entry("pre, lowest weight: still there for a pre hook of weight 0", true, false, -10, int16(-10010), int16(-1)),
		Entry("pre, highest weight", true, false, helm.MaxHookWeight, int16(-1), int16(-1)),
		Entry("post, weight 3: gone after the last post hook", false, true, 3, int16(10003), int16(19999)),
		Entry("post, lowest weight: after the templates' wave 0", false, true, -helm.MaxHookWeight, int16(1), int16(19999)),
		Entry("pre and post: from the pre wave until after the last post hook", true, true, -10, int16(-10010), int16(19999)),
	)

	It("renders test hooks as tests on install and upgrade, and drops rollback hooks", func() {
		for _, objects := range [][]client.Object{
			render(installCtx(), load(chartPath("hooks")), nil),
			render(upgradeCtx(2), load(chartPath("hooks")), nil),
		} {
			Expect(names(objects)).NotTo(ContainElements("ConfigMap/rel-rollback"))
			Expect(annotationsOf(byName(objects, "Pod", "rel-test"))).To(Equal(map[string]string{
				"test-hook": "delete-on-success", "apply-order": "2",
			}), "the weight orders the tests; hook-succeeded deletes it once the run passed")
			Expect(annotationsOf(byName(objects, "Pod", "rel-test-success"))).To(Equal(map[string]string{
				"test-hook": "keep", "apply-order": "0",
			}), "test-success is Helm 2's name of test; without a delete policy the test stays")
		}
	})

	DescribeTable("maps a test's delete policies",
		func(policies, want string) {
			dir := writeChart("tested", map[string]string{"templates/test.yaml": `
apiVersion: v1
kind: Pod
metadata:
  name: t
  annotations:
    helm.sh/hook: test
    helm.sh/hook-delete-policy: ` + policies + "\n"})
			objects := render(installCtx(), load(dir), nil)
			Expect(annotationsOf(byName(objects, "Pod", "t"))).To(HaveKeyWithValue("test-hook", want))
		},
		Entry("before-hook-creation: always the case", "before-hook-creation", "keep"),
		Entry("hook-succeeded", "hook-succeeded", "delete-on-success"),
		Entry("hook-failed", "hook-failed", "delete-on-failure"),
		Entry("both", "hook-failed,hook-succeeded", "delete"),
	)

	It("drops delete hooks when asked to", func() {
		objects := render(installCtx(), load(chartPath("hooks"), helm.WithoutDeleteHooks()), nil)
		Expect(names(objects)).NotTo(ContainElement("Job/rel-pre-delete"))
		Expect(names(objects)).NotTo(ContainElement("ConfigMap/rel-post-delete"))
		Expect(names(objects)).To(ContainElement("Job/rel-post"))
	})

	It("refuses a hook weight that would leave its wave range", func() {
		dir := writeChart("heavy", map[string]string{"templates/job.yaml": `
apiVersion: v1
kind: ConfigMap
metadata:
  name: heavy
  annotations:
    helm.sh/hook: pre-install
    helm.sh/hook-weight: "-10000"
`})
		objects, err := load(dir).Generate(installCtx(), "ns", "rel", nil)
		Expect(objects).To(BeNil())
		Expect(err).To(MatchError("helm chart heavy: heavy/templates/job.yaml: hook ConfigMap heavy: " +
			"helm.sh/hook-weight -10000 is outside [-9999, 9999]"))
	})
})
