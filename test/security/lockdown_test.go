package security_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// With --default-service-account, every Component that names no service
// account is applied as the deployer account of its own namespace.
var _ = Describe("the lockdown", func() {
	It("leaves kube-system/coredns byte-for-byte unchanged when team-a targets kube-system, and reports Forbidden", func() {
		createTenant("team-a")
		coredns := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "coredns"},
			Data:       map[string]string{"Corefile": ".:53 { forward . /etc/resolv.conf }"},
		}
		Expect(env.Client.Create(ctx, coredns)).To(Succeed())
		before := coredns.DeepCopy()

		c := newComponent("team-a", "coredns")
		c.Spec.Namespace = "kube-system"
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(c) }).Should(And(
			HavePrefix("False/"),
			ContainSubstring(`is forbidden: User "system:serviceaccount:team-a:deployer"`),
			ContainSubstring(`in the namespace "kube-system"`)))

		Consistently(func() *corev1.ConfigMap {
			var got corev1.ConfigMap
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(coredns), &got)).To(Succeed())
			return &got
		}).WithTimeout(2 * time.Second).Should(Equal(before))
		for _, obj := range []client.Object{&corev1.Secret{}, &appsv1.Deployment{}} {
			err := env.Client.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "coredns"}, obj)
			if _, isSecret := obj.(*corev1.Secret); isSecret {
				err = env.Client.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "coredns-credentials"}, obj)
			}
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%T in kube-system: %v", obj, err)
		}

		// Deleting the refused Component changes nothing there either (it
		// reports Forbidden for what it may not read; it cannot delete it).
		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(c) }).Should(ContainSubstring(`in the namespace "kube-system"`))
		Consistently(func() *corev1.ConfigMap {
			var got corev1.ConfigMap
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(coredns), &got)).To(Succeed())
			return &got
		}).WithTimeout(2 * time.Second).Should(Equal(before))
	})

	It("accepts no service account name that could stand for another identity", func() {
		for _, name := range []string{"other-ns:deployer", "Deployer", "a/b"} {
			c := &v1alpha1.Component{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "spoof"},
				Spec:       v1alpha1.ComponentSpec{Source: "app", ServiceAccountName: name},
			}
			err := env.Client.Create(ctx, c)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "serviceAccountName %q: %v", name, err)
		}
	})

	It("keeps a chart that hard-codes another team's namespace out of it", func() {
		createTenant("team-attacker")
		createTenant("team-victim")
		victim := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-victim", Name: "settings"}, Data: map[string]string{"k": "v"}}
		Expect(env.Client.Create(ctx, victim)).To(Succeed())
		before := victim.DeepCopy()

		c := newComponent("team-attacker", "settings")
		c.Spec.Source = "elsewhere"
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(c) }).Should(And(
			HavePrefix("False/"),
			ContainSubstring(`User "system:serviceaccount:team-attacker:deployer" cannot get resource "configmaps"`),
			ContainSubstring(`in the namespace "team-victim"`)))
		Consistently(func() *corev1.ConfigMap {
			var got corev1.ConfigMap
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(victim), &got)).To(Succeed())
			return &got
		}).WithTimeout(2 * time.Second).Should(Equal(before))
	})

	It("lets a tenant with only a namespaced Role install and delete a chart with a Deployment, a Secret and a ConfigMap", func() {
		ns := "team-site"
		createTenant(ns)
		c := newComponent(ns, "site")
		Expect(env.Client.Create(ctx, c)).To(Succeed())

		// The Deployment controller, the scheduler and kwok roll it out.
		rolledOut(ns, "site")
		eventually(func() string { return readyCondition(c) }).Should(HavePrefix("True/Ready"))

		owned := []client.Object{
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "site"}},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "site-credentials"}},
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "site"}},
		}
		for _, obj := range owned {
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			Expect(obj.GetLabels()).To(HaveKey(operatorName+"/owner-id"), "%T", obj)
			Expect(obj.GetManagedFields()).To(ContainElement(HaveField("Manager", operatorName)), "%T", obj)
		}

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(c) }).Should(Equal("gone"))
		for _, obj := range owned {
			err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%T %s: %v", obj, obj.GetName(), err)
		}
	})
})
