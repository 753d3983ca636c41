package e2e_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// A failed upgrade as a user sees it, against the real Deployment and Job
// controllers and kwok's pods: the operator's binary with the chart's RBAC
// (which keeps the last Ready render in a Secret) applies testdata/upgrade,
// a Deployment in wave 1 and a ConfigMap in wave 2, with a migration Job and
// a feature ConfigMap that some versions have.
var _ = Describe("remediation of a failed upgrade", Ordered, func() {
	var (
		env *testcluster.Env
		ctx = context.Background()
	)

	BeforeAll(func() {
		env = startControlPlaneWith(testcluster.Options{Controllers: true})
		startWorkloadOperator(ctx, env, "upgrade")
	})

	// rollingBack creates Component name of the upgrade source at values,
	// with remediation, and waits until it is Ready.
	rollingBack := func(ns, name string, remediation component.Remediation, timeout time.Duration, values map[string]any) *v1alpha1.Component {
		GinkgoHelper()
		c := &v1alpha1.Component{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: v1alpha1.ComponentSpec{Source: "upgrade", Values: jsonValues(values), Remediation: &remediation,
				Intervals: v1alpha1.Intervals{Timeout: &metav1.Duration{Duration: timeout}, Retry: &metav1.Duration{Duration: time.Second}}},
		}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(readinessTimeout).Should(Equal("True/Ready"))
		return c
	}
	upgrade := func(c *v1alpha1.Component, values map[string]any) {
		GinkgoHelper()
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
		changed := c.DeepCopy()
		changed.Spec.Values = jsonValues(values)
		Expect(env.Client.Patch(ctx, changed, client.MergeFrom(c))).To(Succeed())
	}
	// settled returns c once its status describes its generation with reason.
	settled := func(c *v1alpha1.Component, reason string) *v1alpha1.Component {
		GinkgoHelper()
		got := &v1alpha1.Component{}
		Eventually(func(g Gomega) {
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Status.ReadyCondition()).NotTo(BeNil())
			g.Expect(got.Status.ReadyCondition().Reason).To(Equal(reason), got.Status.ReadyCondition().Message)
		}).WithTimeout(readinessTimeout).Should(Succeed())
		return got
	}
	deployment := func(ns, name string) *appsv1.Deployment {
		GinkgoHelper()
		d := &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d)).To(Succeed())
		return d
	}

	It("rolls a Deployment that never becomes available back to the last Ready render after its retries, then installs a version that works", func() {
		ns := createNamespace(ctx, env, "rollback-deployment")
		c := rollingBack(ns, "web", component.Remediation{Retries: 1, Strategy: component.RemediateRollback}, 8*time.Second,
			map[string]any{"version": "1"})
		good := settled(c, "Ready")
		Expect(good.Status.LastGoodRender).NotTo(BeNil())
		Expect(good.Status.LastGoodRender.Generation).To(Equal(int64(1)))
		By("keeping the render in a Secret the Component owns")
		var kept corev1.Secret
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web.component.render"}, &kept)).To(Succeed())
		Expect(kept.Type).To(Equal(component.RenderSecretType))
		Expect(metav1.IsControlledBy(&kept, good)).To(BeTrue())
		Expect(good.Status.LastGoodRender.Secret).To(Equal(kept.Name))
		settingsUID := configMapUID(ctx, env, ns, "web-settings")
		deploymentUID := deployment(ns, "web").UID

		By("upgrading to a version whose pods never become ready and that adds a ConfigMap")
		upgrade(c, map[string]any{"version": "2", "notReady": true, "feature": true})
		rolledBack := settled(c, "RolledBack")
		ready := rolledBack.Status.ReadyCondition()
		Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		Expect(ready.Message).To(HavePrefix(fmt.Sprintf("rolled back to the render of generation 1 after 2 tries of generation 2 failed: "+
			"not ready after 8s: waiting for wave 1: apps/Deployment %s/web: ", ns)))
		Expect(ready.Message).To(MatchRegexp(`apps/Deployment \S+/web: \w+, InProgress: \S`), "a timeout says how far the rollout got")
		Expect(meta.IsStatusConditionTrue(rolledBack.Status.Conditions, "Stalled")).To(BeTrue(), "only a change helps")
		Expect(rolledBack.Status.State).To(Equal(component.StateError))

		By("leaving the Deployment's template as version 1 had it, and the objects only version 2 had gone")
		d := deployment(ns, "web")
		Expect(d.UID).To(Equal(deploymentUID), "updated in place")
		Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal("example.invalid/app:1"))
		Expect(d.Spec.Template.Annotations).NotTo(HaveKey("wavekit.dev/test-not-ready"))
		expectAbsent(ctx, env, &corev1.ConfigMap{}, client.ObjectKey{Namespace: ns, Name: "web-feature-2"})
		Expect(configMapUID(ctx, env, ns, "web-settings")).To(Equal(settingsUID), "never touched: wave 2 of version 2 never came")
		Eventually(func() int32 { return deployment(ns, "web").Status.AvailableReplicas }).WithTimeout(readinessTimeout).Should(Equal(int32(1)))

		By("recording the install, the failed upgrade and the rollback")
		Expect(outcomes(rolledBack.Status.History)).To(Equal([]string{"1 Ready", "2 Failed", "2 RolledBack"}))
		failed := rolledBack.Status.History[1]
		Expect(failed.RenderDigest).NotTo(Equal(good.Status.LastGoodRender.RenderDigest))
		Expect(failed.Message).To(ContainSubstring("apps/Deployment " + ns + "/web: "))
		Expect(rolledBack.Status.History[2].RenderDigest).To(Equal(good.Status.LastGoodRender.RenderDigest))
		Expect(rolledBack.Status.Attempt).To(HaveField("Failures", int32(2)))

		By("not trying the failed render again")
		Consistently(func() string { return deployment(ns, "web").Spec.Template.Spec.Containers[0].Image }).
			WithTimeout(3 * time.Second).Should(Equal("example.invalid/app:1"))

		By("installing a version that works as any upgrade")
		upgrade(c, map[string]any{"version": "3", "feature": true})
		upgraded := settled(c, "Ready")
		Expect(deployment(ns, "web").Spec.Template.Spec.Containers[0].Image).To(Equal("example.invalid/app:3"))
		Expect(configMapUID(ctx, env, ns, "web-feature-3")).NotTo(BeEmpty())
		Expect(outcomes(upgraded.Status.History)).To(Equal([]string{"1 Ready", "2 Failed", "2 RolledBack", "3 Ready"}))
		Expect(upgraded.Status.LastGoodRender.Generation).To(Equal(int64(3)))
		Expect(upgraded.Status.Attempt).To(HaveField("Failures", int32(0)))
	})

	It("rolls a failed migration Job back at once with retries 0, pruning the failed version's Job", func() {
		ns := createNamespace(ctx, env, "rollback-job")
		c := rollingBack(ns, "db", component.Remediation{Strategy: component.RemediateRollback}, time.Minute,
			map[string]any{"version": "1", "migrate": true})
		Expect(jobSucceeded(ctx, env, ns, "db-migrate-1")).To(BeTrue())

		upgrade(c, map[string]any{"version": "2", "migrate": true, "failMigration": true})
		rolledBack := settled(c, "RolledBack")
		Expect(rolledBack.Status.ReadyCondition().Message).To(Equal(fmt.Sprintf("rolled back to the render of generation 1 after 1 try of generation 2 failed: "+
			"batch/Job %s/db-migrate-2 failed: Failed: BackoffLimitExceeded: Job has reached the specified backoff limit", ns)))
		Expect(outcomes(rolledBack.Status.History)).To(Equal([]string{"1 Ready", "2 Failed", "2 RolledBack"}))
		Eventually(func() bool { return jobExists(ctx, env, ns, "db-migrate-2") }).WithTimeout(readinessTimeout).Should(BeFalse(), "pruned")
		Expect(jobSucceeded(ctx, env, ns, "db-migrate-1")).To(BeTrue(), "the Ready version's Job stays")
		Expect(deployment(ns, "db").Spec.Template.Spec.Containers[0].Image).To(Equal("example.invalid/app:1"))
		Expect(reasonsFor(ctx, env, ns, "db")).To(ContainElement(HavePrefix("RolledBack: rolled back to the render of generation 1")))

		By("trying the failed render again on a reconcile request, and rolling it back again")
		requested := rolledBack.DeepCopy()
		requested.Annotations = map[string]string{"e2e.wavekit.dev/reconcile-requested-at": "again"}
		Expect(env.Client.Patch(ctx, requested, client.MergeFrom(rolledBack))).To(Succeed())
		Eventually(func(g Gomega) {
			got := &v1alpha1.Component{}
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
			g.Expect(got.Status.LastHandledReconcileAt).To(Equal("again"))
			g.Expect(got.Status.ReadyCondition().Reason).To(Equal("RolledBack"))
			g.Expect(outcomes(got.Status.History)).To(Equal([]string{"1 Ready", "2 Failed", "2 RolledBack", "2 Failed", "2 RolledBack"}))
		}).WithTimeout(readinessTimeout).Should(Succeed())
		Eventually(func() bool { return jobExists(ctx, env, ns, "db-migrate-2") }).WithTimeout(readinessTimeout).Should(BeFalse(), "pruned again")
	})

	It("leaves a failed upgrade in place with strategy None, recording it", func() {
		ns := createNamespace(ctx, env, "no-rollback")
		c := rollingBack(ns, "db", component.Remediation{Strategy: component.RemediateNone}, time.Minute,
			map[string]any{"version": "1", "migrate": true})
		upgrade(c, map[string]any{"version": "2", "migrate": true, "failMigration": true})
		failed := settled(c, "Error")
		Expect(failed.Status.ReadyCondition().Message).To(ContainSubstring("batch/Job " + ns + "/db-migrate-2 failed"))
		Expect(outcomes(failed.Status.History)).To(Equal([]string{"1 Ready", "2 Failed"}))
		Expect(failed.Status.LastGoodRender).To(BeNil(), "nothing is kept without strategy Rollback")
		expectAbsent(ctx, env, &corev1.Secret{}, client.ObjectKey{Namespace: ns, Name: "db.component.render"})
		Expect(jobExists(ctx, env, ns, "db-migrate-2")).To(BeTrue())
	})

	It("never overwrites a Secret that is not the Component's render, and stays Ready saying so", func() {
		ns := createNamespace(ctx, env, "render-squat")
		other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app.component.render"},
			StringData: map[string]string{"password": "keep-me"}}
		Expect(env.Client.Create(ctx, other)).To(Succeed())
		c := rollingBack(ns, "app", component.Remediation{Strategy: component.RemediateRollback}, time.Minute, map[string]any{"version": "1"})
		got := settled(c, "Ready")
		Expect(got.Status.ReadyCondition().Message).To(Equal(fmt.Sprintf("every object is applied and ready; the render is not kept for a rollback: "+
			"keeping the render in Secret %s/app.component.render: the Secret exists and is not this component's render (type Opaque): rename or remove it", ns)))
		Expect(got.Status.LastGoodRender).To(BeNil())
		var after corev1.Secret
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(other), &after)).To(Succeed())
		Expect(after.Data).To(Equal(map[string][]byte{"password": []byte("keep-me")}))
		Expect(after.OwnerReferences).To(BeEmpty())
	})
})

// outcomes lists a history as "GENERATION RESULT".
func outcomes(history []component.HistoryEntry) []string {
	var out []string
	for _, h := range history {
		out = append(out, fmt.Sprintf("%d %s", h.Generation, h.Result))
	}
	return out
}

func configMapUID(ctx context.Context, env *testcluster.Env, ns, name string) string {
	GinkgoHelper()
	var cm corev1.ConfigMap
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cm)).To(Succeed())
	return string(cm.UID)
}

func jobExists(ctx context.Context, env *testcluster.Env, ns, name string) bool {
	var job batchv1.Job
	return env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &job) == nil
}

func jobSucceeded(ctx context.Context, env *testcluster.Env, ns, name string) bool {
	GinkgoHelper()
	var job batchv1.Job
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &job)).To(Succeed())
	return job.Status.Succeeded == 1
}
