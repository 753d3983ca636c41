package chart_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// notes returns what `helm install` prints after installing the chart with values.
func notes(values map[string]any) string {
	GinkgoHelper()
	chart, err := loader.Load(chartDir)
	Expect(err).NotTo(HaveOccurred())
	install := action.NewInstall(&action.Configuration{})
	install.ClientOnly, install.DryRun = true, true
	install.ReleaseName, install.Namespace = "wavekit", "wavekit-system"
	release, err := install.Run(chart, values)
	Expect(err).NotTo(HaveOccurred())
	return release.Info.Notes
}

var _ = Describe("the chart's NOTES", func() {
	It("say what a Component can name without sources, and that nothing may be deployed yet", func() {
		text := notes(nil)
		Expect(text).To(ContainSubstring("every Component names its chart itself"))
		Expect(text).To(ContainSubstring("no rbac.extraRules are set, so the operator may deploy nothing yet"))
		Expect(text).To(ContainSubstring("read what Components refer to (ConfigMaps,\nSecrets, Flux sources)"))
		Expect(text).NotTo(ContainSubstring("nothing to install"))
	})

	It("say nothing about missing rights once extraRules grant some", func() {
		text := notes(map[string]any{"rbac": map[string]any{"extraRules": []any{map[string]any{
			"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": []any{"get"}}}}})
		Expect(text).NotTo(ContainSubstring("rbac.extraRules"))
	})
})
