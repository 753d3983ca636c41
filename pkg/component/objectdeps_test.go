package component_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// A component that waits for an object (dependsOn with a kind) moves on the
// events of a watch of that one object. Every component here retries after
// an hour: only the watch can explain its progress.
var _ = Describe("the objects a component waits for", func() {
	ctx := context.Background()
	const readyExpr = "self.data.ready == 'true'"

	waiting := func(ns, name string) *v1alpha1.Component {
		c := newComponent(ns, name, map[string]any{})
		c.Spec.DependsOn = []v1alpha1.DependencyReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "flag", ReadyExpr: readyExpr}}
		c.Spec.Intervals.Retry = &metav1.Duration{Duration: time.Hour}
		return c
	}
	flag := func(ns, ready string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "flag"}, Data: map[string]string{"ready": ready}}
	}

	It("shares one watch of the object among the components that wait for it, and stops it once none does", func() {
		ns := newNamespace(ctx)
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		watches := func() int { n, _ := component.ObjectWatches(h.reconciler); return n }
		running := func() int { _, n := component.ObjectWatches(h.reconciler); return n }
		a, b := waiting(ns, "a"), waiting(ns, "b")
		Expect(env.Client.Create(ctx, a)).To(Succeed())
		Expect(env.Client.Create(ctx, b)).To(Succeed())
		missing := "False/Pending: waiting for dependency ConfigMap " + ns + "/flag: it does not exist"
		eventually(func() string { return readyCondition(ctx, a) }).Should(Equal(missing))
		eventually(func() string { return readyCondition(ctx, b) }).Should(Equal(missing))
		Expect(watches()).To(Equal(1), "one watch for both")
		Expect(running()).To(Equal(1))

		By("moving both on when the object is created")
		Expect(env.Client.Create(ctx, flag(ns, "false"))).To(Succeed())
		notTrue := "False/Pending: waiting for dependency ConfigMap " + ns + "/flag: readyExpr " + readyExpr + " is not true"
		eventually(func() string { return readyCondition(ctx, a) }).Should(Equal(notTrue))
		eventually(func() string { return readyCondition(ctx, b) }).Should(Equal(notTrue))

		By("keeping the watch while one of them still waits")
		Expect(env.Client.Delete(ctx, b)).To(Succeed())
		eventually(func() error { return env.Client.Get(ctx, client.ObjectKeyFromObject(b), b) }).Should(Satisfy(apierrors.IsNotFound))
		Expect(watches()).To(Equal(1))

		By("stopping it once the last one moves on")
		Expect(env.Client.Update(ctx, flag(ns, "true"))).To(Succeed())
		eventually(func() string { return readyCondition(ctx, a) }).Should(HavePrefix("True/Ready"))
		Expect(watches()).To(BeZero())
		eventually(running).Should(BeZero(), "its goroutine returns")
	})

	It("stops the watch when the waiting component is deleted", func() {
		ns := newNamespace(ctx)
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		c := waiting(ns, "gone")
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HaveSuffix("it does not exist"))
		watches, running := component.ObjectWatches(h.reconciler)
		Expect([]int{watches, running}).To(Equal([]int{1, 1}))
		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() error { return env.Client.Get(ctx, client.ObjectKeyFromObject(c), c) }).Should(Satisfy(apierrors.IsNotFound))
		eventually(func() []int { n, r := component.ObjectWatches(h.reconciler); return []int{n, r} }).Should(Equal([]int{0, 0}))
	})

	It("says when its identity may not watch the object, and moves on once it may", func() {
		ns := newNamespace(ctx)
		grant(ctx, ns, "reader", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}})
		startOperator(ctx, ns, component.ReconcilerOptions{DefaultServiceAccount: "reader"})
		c := waiting(ns, "locked")
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(And(
			HavePrefix("False/Pending: waiting for dependency ConfigMap "+ns+"/flag: it does not exist; cannot watch it: "),
			MatchRegexp(`User "system:serviceaccount:`+ns+`:reader" cannot (list|watch) resource "configmaps"`)))

		By("watching it once a rule names that one object")
		grant(ctx, ns, "reader-flag", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"},
			ResourceNames: []string{"flag"}, Verbs: []string{"list", "watch"}})
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("False/Pending: waiting for dependency ConfigMap " + ns + "/flag: it does not exist"))
		Expect(env.Client.Create(ctx, flag(ns, "true"))).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
	})
})

// grant binds a Role with rule to the service account reader of ns.
func grant(ctx context.Context, ns, name string, rule rbacv1.PolicyRule) {
	GinkgoHelper()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: []rbacv1.PolicyRule{rule}}
	Expect(env.Client.Create(ctx, role)).To(Succeed())
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "reader", Namespace: ns}}}
	Expect(env.Client.Create(ctx, binding)).To(Succeed())
}
