package security_test

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// The operator may read every Secret; a Component's valuesFrom must not let
// a tenant use that to copy a Secret its own account may not read into
// objects it can read.
var _ = Describe("valuesFrom under the lockdown", func() {
	It("reads a Secret as the Component's service account, so one it may not read stays unread", func() {
		ns := "team-values"
		createTenant(ns)
		Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nobody"}})).To(Succeed())
		const value = "platform-only-3f9a"
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "platform"},
			StringData: map[string]string{"values.yaml": "greeting: " + value}})).To(Succeed())

		c := newComponent(ns, "peek")
		c.Spec.ServiceAccountName = "nobody" // an account with no rights at all
		c.Spec.ValuesFrom = []v1alpha1.ValuesReference{{Kind: "Secret", Name: "platform"}}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(c) }).Should(And(
			HavePrefix("False/"),
			ContainSubstring(`User "system:serviceaccount:team-values:nobody" cannot get resource "secrets"`)))
		Expect(readyCondition(c)).NotTo(ContainSubstring(value))
		var cms corev1.ConfigMapList
		Expect(env.Client.List(ctx, &cms, client.InNamespace(ns))).To(Succeed())
		for _, cm := range cms.Items {
			Expect(cm.Data).NotTo(ContainElement(ContainSubstring(value)), "ConfigMap %s", cm.Name)
		}

		By("reading it as the lockdown's account, which may")
		c2 := newComponent(ns, "allowed")
		c2.Spec.ValuesFrom = []v1alpha1.ValuesReference{{Kind: "Secret", Name: "platform"}}
		Expect(env.Client.Create(ctx, c2)).To(Succeed())
		eventually(func() map[string]string {
			var cm corev1.ConfigMap
			_ = env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "allowed"}, &cm)
			return cm.Data
		}).Should(HaveKeyWithValue("greeting", value))
	})
})
