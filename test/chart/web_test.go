package chart_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

var _ = Describe("helm template with web.enabled", func() {
	It("passes the OpenID Connect client and the session key, their secrets from Secrets and never in a flag", func() {
		objects := render("wavekit", "wavekit-system", append(oneSource, "--set", "web.enabled=true",
			"--set", "web.oidc.issuerURL=https://dex.example.com", "--set", "web.oidc.clientID=wavekit",
			"--set", "web.oidc.redirectURL=https://wavekit.example.com/auth/callback", "--set", "web.oidc.clientSecret.name=wavekit-oidc",
			"--set", "web.oidc.groupsPrefix=-", "--set", "web.sessionKey.name=wavekit-session", "--set", "web.readOnly=true",
			"--set", "web.anonymous.user=guest", "--set", "web.anonymous.groups={readers,guests}")...)
		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		operator := deployment.Spec.Template.Spec.Containers[0]
		Expect(operator.Args).To(ContainElements("--web-bind-address=:9090", "--web-read-only",
			"--web-oidc-issuer-url=https://dex.example.com", "--web-oidc-client-id=wavekit",
			"--web-oidc-redirect-url=https://wavekit.example.com/auth/callback", "--web-oidc-groups-prefix=-", "--web-session-lifetime=8h",
			"--web-anonymous-user=guest", "--web-anonymous-groups=readers,guests"))
		Expect(operator.Args).NotTo(ContainElement(HavePrefix("--web-oidc-username")))
		Expect(operator.Env).To(ContainElements(
			corev1.EnvVar{Name: "WAVEKIT_WEB_OIDC_CLIENT_SECRET", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "wavekit-oidc"}, Key: "client-secret"}}},
			corev1.EnvVar{Name: "WAVEKIT_WEB_SESSION_KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "wavekit-session"}, Key: "session-key"}}}))
	})

	It("refuses an issuer without the client's Secret", func() {
		_, err := helm("template", "wavekit", chartDir, "--set", "web.enabled=true", "--set", "web.oidc.issuerURL=https://dex.example.com",
			"--set", "web.oidc.clientID=wavekit", "--set", "web.oidc.redirectURL=https://w.example.com/auth/callback")
		Expect(err).To(MatchError(ContainSubstring("web.oidc.clientSecret.name")))
	})

	It("ships a viewer and an operator role for people, aggregated to view and edit", func() {
		objects := render("wavekit", "wavekit-system", append(oneSource, "--set", "web.enabled=true")...)
		var viewer, actor rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "wavekit-component-operator-web-viewer", &viewer)
		find(objects, "ClusterRole", "", "wavekit-component-operator-web-operator", &actor)
		Expect(viewer.Rules).To(ContainElement(And(HaveField("Resources", ConsistOf("components", "componentsets", "componentdefinitions")), HaveField("Verbs", ConsistOf("get", "list", "watch")))))
		Expect(actor.Rules).To(ConsistOf(And(HaveField("Resources", ConsistOf("components", "componentsets")),
			HaveField("Verbs", ConsistOf("reconcile", "suspend", "resume", "rollback"))), rule("wavekit.dev", "componentdefinitions", "promote")))
		Expect(viewer.Labels).To(HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-view", "true"))
		Expect(actor.Labels).To(HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-edit", "true"))
		Expect(actor.Labels).NotTo(HaveKey("rbac.authorization.k8s.io/aggregate-to-view"))

		apart := render("wavekit", "wavekit-system", append(oneSource, "--set", "web.enabled=true", "--set", "web.roles.aggregate=false")...)
		find(apart, "ClusterRole", "", "wavekit-component-operator-web-viewer", &viewer)
		Expect(viewer.Labels).NotTo(HaveKey("rbac.authorization.k8s.io/aggregate-to-view"))
		Expect(ids(render("wavekit", "wavekit-system", oneSource...))).NotTo(ContainElement(HaveSuffix("-web-viewer")))
	})
})
