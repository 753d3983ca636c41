package chart_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// A replica holds its Lease under its pod's name, which a restarted
// container keeps: after an outage made it lose the Lease and exit, it leads
// again as soon as it asks (issue 76).
var _ = Describe("helm template of the leader election's identity", func() {
	env := func(args ...string) map[string]corev1.EnvVar {
		GinkgoHelper()
		var deployment appsv1.Deployment
		find(render("wavekit", "wavekit-system", append(oneSource, args...)...), "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		out := map[string]corev1.EnvVar{}
		for _, e := range deployment.Spec.Template.Spec.Containers[0].Env {
			out[e.Name] = e
		}
		return out
	}

	It("gives the operator its pod's name with leader election, beside GOMEMLIMIT and extraEnv", func() {
		for _, args := range [][]string{{"--set", "replicas=2"}, {"--set", "leaderElection=true"}} {
			got := env(append(args, "--set", "extraEnv[0].name=EXTRA", "--set", "extraEnv[0].value=a")...)
			Expect(got).To(HaveKey("POD_NAME"), "with %v", args)
			Expect(got["POD_NAME"].ValueFrom.FieldRef.FieldPath).To(Equal("metadata.name"))
			Expect(got).To(HaveKey("GOMEMLIMIT"))
			Expect(got).To(HaveKey("EXTRA"))
		}
		Expect(env()).NotTo(HaveKey("POD_NAME"), "one replica without leader election")
		Expect(env("--set", "goMemLimit=", "--set", "resources.limits=null")).To(BeEmpty())
	})
})
