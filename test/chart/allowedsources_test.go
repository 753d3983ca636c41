package chart_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

var _ = Describe("helm template with allowedSources", func() {
	It("passes one --allowed-sources flag per pattern, and lets the operator watch Namespaces for their narrowing annotation", func() {
		objects := render("wavekit", "wavekit-system", append(oneSource,
			"--set", "allowedSources[0]=https://charts.example.com/**", "--set", "allowedSources[1]=!oci://registry.example.com/experimental/**")...)
		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		Expect(deployment.Spec.Template.Spec.Containers[0].Args).To(ContainElements(
			"--allowed-sources=https://charts.example.com/**", "--allowed-sources=!oci://registry.example.com/experimental/**"))
		var namespaces rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "wavekit-component-operator-crds-namespaces", &namespaces)
		Expect(namespaces.Rules).To(ContainElement(And(
			HaveField("Resources", ContainElement("namespaces")), HaveField("Verbs", ContainElements("get", "list", "watch")))))
	})

	It("passes no flag by default", func() {
		objects := render("wavekit", "wavekit-system", oneSource...)
		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		Expect(deployment.Spec.Template.Spec.Containers[0].Args).NotTo(ContainElement(HavePrefix("--allowed-sources")))
	})
})
