package chart_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

var _ = Describe("helm template of the bounds of Git fetches and of memory", func() {
	operator := func(args ...string) corev1.Container {
		GinkgoHelper()
		var deployment appsv1.Deployment
		find(render("wavekit", "wavekit-system", append(oneSource, args...)...), "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		return deployment.Spec.Template.Spec.Containers[0]
	}
	goMemLimit := func(c corev1.Container) []corev1.EnvVar {
		var found []corev1.EnvVar
		for _, e := range c.Env {
			if e.Name == "GOMEMLIMIT" {
				found = append(found, e)
			}
		}
		return found
	}

	It("passes the Git bounds as flags", func() {
		Expect(operator("--set", "git.maxObjectSize=33554432").Args).To(ContainElement("--git-max-object-size=33554432"))
		Expect(operator().Args).NotTo(ContainElement(HavePrefix("--git-max-object-size")))
	})

	It("sets GOMEMLIMIT to the container's memory limit, to a value, or not at all", func() {
		byDefault := goMemLimit(operator())
		Expect(byDefault).To(HaveLen(1))
		Expect(byDefault[0].ValueFrom.ResourceFieldRef.Resource).To(Equal("limits.memory"))
		Expect(goMemLimit(operator("--set", "resources.limits=null"))).To(BeEmpty(), "no limit to take")
		Expect(goMemLimit(operator("--set", "goMemLimit=450MiB"))).To(ConsistOf(HaveField("Value", "450MiB")))
		Expect(goMemLimit(operator("--set", "goMemLimit="))).To(BeEmpty())
		Expect(goMemLimit(operator("--set", "extraEnv[0].name=GOMEMLIMIT", "--set", "extraEnv[0].value=300MiB"))).To(ConsistOf(HaveField("Value", "300MiB")), "extraEnv's own, once")
		_, err := helm(append([]string{"template", "x", chartDir, "--set", "goMemLimit=half"}, oneSource...)...)
		Expect(err).To(MatchError(ContainSubstring("/goMemLimit")))
	})
})
