package chart_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
)

var _ = Describe("helm template with tracing", func() {
	It("passes no tracing flag by default", func() {
		objects := render("wavekit", "wavekit-system", oneSource...)
		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		Expect(deployment.Spec.Template.Spec.Containers[0].Args).NotTo(ContainElement(Or(HavePrefix("--otlp-endpoint"), HavePrefix("--trace-sample-ratio"))))
	})

	It("renders the endpoint and the sample ratio, a ratio of 0 included", func() {
		for ratio, flag := range map[string]string{"0.25": "--trace-sample-ratio=0.25", "0": "--trace-sample-ratio=0"} {
			objects := render("wavekit", "wavekit-system", append(oneSource,
				"--set", "tracing.endpoint=http://collector.monitoring:4318", "--set", "tracing.sampleRatio="+ratio)...)
			var deployment appsv1.Deployment
			find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
			Expect(deployment.Spec.Template.Spec.Containers[0].Args).To(ContainElements("--otlp-endpoint=http://collector.monitoring:4318", flag))
		}
	})

	It("refuses a ratio above 1 and an endpoint that is no URL", func() {
		_, err := helm(append([]string{"template", "x", chartDir, "--set", "tracing.sampleRatio=2"}, oneSource...)...)
		Expect(err).To(MatchError(ContainSubstring("/tracing/sampleRatio")))
		_, err = helm(append([]string{"template", "x", chartDir, "--set", "tracing.endpoint=collector:4318"}, oneSource...)...)
		Expect(err).To(MatchError(ContainSubstring("/tracing/endpoint")))
	})
})
