package chart_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

var _ = Describe("helm template with receiver.enabled", func() {
	It("adds the flag, the port, the Service and the rights on Receivers, none of them by default", func() {
		objects := render("wavekit", "wavekit-system", append(oneSource, "--set", "receiver.enabled=true")...)
		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		operator := deployment.Spec.Template.Spec.Containers[0]
		Expect(operator.Args).To(ContainElement("--receiver-bind-address=:9292"))
		Expect(operator.Ports).To(ContainElement(And(HaveField("Name", "receiver"), HaveField("ContainerPort", BeEquivalentTo(9292)))))
		var service corev1.Service
		find(objects, "Service", "wavekit-system", "wavekit-component-operator-receiver", &service)
		Expect(service.Spec.Ports).To(ConsistOf(And(HaveField("Port", BeEquivalentTo(80)), HaveField("Name", "receiver"))))
		var role rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "wavekit-component-operator", &role)
		Expect(role.Rules).To(ContainElements(
			rule("wavekit.dev", "receivers", "get", "list", "watch"),
			rule("wavekit.dev", "receivers/status", "get", "update", "patch"),
		))

		off := render("wavekit", "wavekit-system", oneSource...)
		Expect(ids(off)).NotTo(ContainElement(HaveSuffix("-receiver")))
		find(off, "ClusterRole", "", "wavekit-component-operator", &role)
		Expect(role.Rules).NotTo(ContainElement(HaveField("Resources", ContainElement(HavePrefix("receivers")))))
		find(off, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		Expect(deployment.Spec.Template.Spec.Containers[0].Args).NotTo(ContainElement(HavePrefix("--receiver-bind-address")))
	})

	It("refuses a receiver that could not read its token", func() {
		_, err := helm("template", "wavekit", chartDir, "--set", "receiver.enabled=true", "--set", "rbac.readSources=false")
		Expect(err).To(MatchError(ContainSubstring("receiver.enabled needs rbac.readSources")))
	})
})
