package fleet_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/fleettest"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

const (
	ns = "fleet"
	// holdAnnotation on a cluster's ConfigMap keeps its Component from
	// being Ready (the template's health check), so a test can hold a wave.
	holdAnnotation = "test.wavekit.dev/hold"
	timeout        = fleettest.Timeout
)

// The clusters: c1 is the canary (wave 1), c2 and c3 the main wave.
var clusterLabels = []map[string]string{
	{"wave": "canary", "region": "eu"},
	{"wave": "main", "region": "eu"},
	{"wave": "main", "region": "us"},
}

var _ = Describe("a ComponentSet over three clusters in two waves", Ordered, func() {
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
	var alerts setAlerts // what the operator tells of the set's rollout

	BeforeAll(func() {
		Expect(hub.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		alerts = listenToSet(ns, "web")
		for i, target := range clusters[:2] {
			labels := map[string]string{clusterLabel: "true", "fleet": "demo", "name": clusterName(i)}
			for k, v := range clusterLabels[i] {
				labels[k] = v
			}
			secret, err := target.KubeconfigSecret(ns, clusterName(i), labels)
			Expect(err).NotTo(HaveOccurred())
			Expect(hub.Client.Create(ctx, secret)).To(Succeed())
		}
		// c3 is registered as Cluster API registers a cluster: a Cluster,
		// whose labels select it, and its Secret c3-kubeconfig.
		createCAPICluster(ns, "c3", map[string]string{"fleet": "demo", "name": "c3", "wave": "main", "region": "us"}, clusters[2])
		set.Spec = v1alpha1.ComponentSetSpec{
			Template: v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{
				Source: "site",
				Values: fleettest.Values("v1"),
				HealthChecks: []manifests.HealthCheck{{
					APIVersion: "v1", Kind: "ConfigMap",
					Failed:  "self.data.greeting == 'broken'",
					Current: fmt.Sprintf("!has(self.metadata.annotations) || !('%s' in self.metadata.annotations)", holdAnnotation),
				}},
				Remediation: &component.Remediation{Strategy: component.RemediateRollback},
			}},
			Placement: &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": "demo"}}},
			Rollout:   v1alpha1.Rollout{WaveLabel: "wave", WaveOrder: []string{"canary", "main"}},
		}
		Expect(hub.Client.Create(ctx, set)).To(Succeed())
	})

	It("installs on every cluster, with each cluster's own values, a Cluster API cluster too", func() {
		for i := range clusters {
			Eventually(func() map[string]string { return fleettest.ConfigData(clusters[i], ns, "web-config") }).WithTimeout(timeout).Should(And(
				HaveKeyWithValue("greeting", "v1"), HaveKeyWithValue("cluster", clusterName(i)),
				HaveKeyWithValue("region", clusterLabels[i]["region"])), "cluster %s", clusterName(i))
		}
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		got := hub.Get(set)
		Expect(got.Status.Rollout).To(Equal(v1alpha1.RolloutStatus{Wave: 2, Waves: 2, Clusters: 3, Ready: 3}))
		Expect(got.Status.Clusters).To(ConsistOf(HavePrefix("c1 (wave 1): Ready"), HavePrefix("c2 (wave 2): Ready"), HavePrefix("c3 (wave 2): Ready")))
		var c v1alpha1.Component
		Expect(hub.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-c1"}, &c)).To(Succeed())
		Expect(metav1.IsControlledBy(&c, got)).To(BeTrue())
		Expect(c.Spec.KubeConfig).To(Equal(&v1alpha1.SecretKeyReference{Name: "c1", Key: "value"}))
		Expect(hub.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-c3"}, &c)).To(Succeed())
		Expect(c.Spec.KubeConfig).To(Equal(&v1alpha1.SecretKeyReference{Name: "c3-kubeconfig", Key: "value"}), "Cluster API's Secret")
	})

	It("previews a change cluster by cluster with wavekit diff componentset, and writes nothing", func() {
		// A message for region us only, and c2 out of the selection.
		changed := hub.Get(set)
		changed.Spec.Template.Spec.Values = fleettest.ValuesWith("v1", map[string]any{"motd": map[string]string{"us": "hello us"}})
		changed.Spec.Placement.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{
			{Key: "name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"c2"}}}
		r := diffSet("-f", writeSet(changed))
		Expect(r.code).To(Equal(1), r.stderr)
		sections := clusterSections(r.stdout)
		Expect(sections).To(HaveLen(3), r.stdout)
		Expect(sections["c1"]).To(HavePrefix("cluster c1 (wave 1): Component fleet/web-c1\n"))
		Expect(sections["c1"]).To(ContainSubstring("Summary: 0 to create, 0 to update, 0 to delete, 2 unchanged\n"), "region eu has no motd")
		Expect(sections["c1"]).NotTo(ContainSubstring("ConfigMap"))
		Expect(sections["c3"]).To(HavePrefix("cluster c3 (wave 2): Component fleet/web-c3\n"))
		Expect(sections["c3"]).To(ContainSubstring("~ update ConfigMap fleet/web-config (data.motd: (none) → hello us)\n"))
		Expect(sections["c3"]).To(ContainSubstring("Summary: 0 to create, 1 to update, 0 to delete, 1 unchanged\n"))
		Expect(sections["c2"]).To(HavePrefix("cluster c2 leaves the selection: Component fleet/web-c2 is deleted, and its objects with it\n"))
		Expect(r.stdout).To(HaveSuffix("Clusters: 1 to change, 1 unchanged, 1 to leave, 0 not previewed\n"))

		Expect(fleettest.ConfigData(clusters[2], ns, "web-config")).NotTo(HaveKey("motd"), "a preview writes nothing")
		Expect(hub.Get(set).Spec.Template.Spec.Values).To(Equal(fleettest.Values("v1")))
		r = diffSet("fleet/web")
		Expect(r.code).To(Equal(0), r.stdout+r.stderr)
		Expect(r.stdout).To(HaveSuffix("Clusters: 0 to change, 3 unchanged, 0 to leave, 0 not previewed\n"))
	})

	It("lets a set select only the cluster Secrets of its own namespace", func() {
		Expect(hub.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tenant"}})).To(Succeed())
		tenant := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant", Name: "grab"}, Spec: v1alpha1.ComponentSetSpec{
			Template:  v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site", Values: fleettest.Values("stolen")}},
			Placement: &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{}}, // every cluster it may see
		}}
		Expect(hub.Client.Create(ctx, tenant)).To(Succeed())
		Eventually(func() int64 { return hub.Get(tenant).Status.ObservedGeneration }).WithTimeout(timeout).Should(Equal(int64(1)))
		Expect(hub.Get(tenant).Status.Rollout.Clusters).To(BeZero())
		var components v1alpha1.ComponentList
		Expect(hub.Client.List(ctx, &components, client.InNamespace("tenant"))).To(Succeed())
		Expect(components.Items).To(BeEmpty())
		Expect(hub.Client.Delete(ctx, tenant)).To(Succeed())
	})

	It("upgrades wave by wave: the main wave keeps the old render until the canary is Ready", func() {
		hold(0, true)
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("v2") })
		Eventually(greeting).WithArguments(0).WithTimeout(timeout).Should(Equal("v2"))
		Eventually(func() int32 { return hub.Get(set).Status.Rollout.Waiting }).WithTimeout(timeout).Should(Equal(int32(2)))
		Consistently(func() []string { return []string{greeting(1), greeting(2)} }).WithTimeout(3*time.Second).
			Should(Equal([]string{"v1", "v1"}), "the main wave is not written while the canary is not Ready")
		Expect(hub.Get(set).Status.Rollout.Wave).To(Equal(int32(1)))

		hold(0, false)
		for i := 1; i < 3; i++ {
			Eventually(greeting).WithArguments(i).WithTimeout(timeout).Should(Equal("v2"))
		}
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		Eventually(func() []string { return alerts.told(notify.KindWaveDone) }).WithTimeout(timeout).Should(ContainElements(
			"wave 1 of 2 done: its clusters are Ready at the template; the rollout goes on to wave 2",
			"wave 2 of 2 done: 3 of 3 clusters Ready"), "an Alert of the namespace is told of each wave done")
	})

	It("stops at a canary whose health check fails, which rolls back, and goes on with a good template", func() {
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("broken") })
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("False/Failed"))
		got := hub.Get(set)
		Expect(meta(got, component.ConditionStalled)).To(HaveField("Status", metav1.ConditionTrue))
		Expect(got.Status.Rollout).To(HaveField("Failed", int32(1)))
		Expect(got.Status.Clusters[0]).To(HavePrefix("c1 (wave 1): Failed"))
		Eventually(greeting).WithArguments(0).WithTimeout(timeout).Should(Equal("v2"), "the canary is rolled back")
		Eventually(hub.EventReasons).WithArguments(set).WithTimeout(timeout).Should(ContainElements("TemplateWritten", "RolloutStopped"))
		Eventually(func() []string { return alerts.told(notify.KindWaveHeld) }).WithTimeout(timeout).Should(ContainElement(
			HavePrefix("the rollout stopped at wave 1 of 2: cluster c1 failed")), "an Alert of the namespace is told")
		Consistently(func() []string { return []string{greeting(1), greeting(2)} }).WithTimeout(3*time.Second).
			Should(Equal([]string{"v2", "v2"}), "the main wave keeps the old render")

		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("v3") })
		for i := range clusters {
			Eventually(greeting).WithArguments(i).WithTimeout(timeout).Should(Equal("v3"))
		}
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
	})

	It("finishes the others while a cluster's API server is down, reports it unreachable, and catches it up", func() {
		downCtx, cancel := context.WithTimeout(ctx, 4*time.Minute)
		defer cancel()
		Expect(clusters[2].RestartAPIServer(downCtx, func() {
			hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("v4") })
			Eventually(greeting).WithArguments(0).WithTimeout(timeout).Should(Equal("v4"))
			Eventually(greeting).WithArguments(1).WithTimeout(timeout).Should(Equal("v4"))
			Eventually(func() v1alpha1.RolloutStatus { return hub.Get(set).Status.Rollout }).WithTimeout(timeout).Should(And(
				HaveField("Unreachable", int32(1)), HaveField("Ready", int32(2))))
			Expect(hub.Get(set).Status.Clusters[0]).To(HavePrefix("c3 (wave 2): Unreachable"))
			Eventually(func() []string { return alerts.told(notify.KindClusterUnreachable) }).WithTimeout(timeout).Should(ContainElement(
				HavePrefix("1 cluster of 3 does not answer: c3;")), "an Alert of the namespace is told")
			Eventually(componentReady).WithArguments("web-c3").WithTimeout(timeout).
				Should(HaveField("Reason", component.ReasonTargetUnreachable), "the Component says why, in its reason")
			Expect(componentReady("web-c1")).To(HaveField("Reason", component.ReasonReady))

			r := diffSet("fleet/web", "--target-timeout", "5s")
			Expect(r.code).To(Equal(2), r.stdout)
			Expect(r.stderr).To(Equal("error: 1 of 3 clusters could not be previewed: c3\n"))
			sections := clusterSections(r.stdout)
			Expect(sections["c3"]).To(HavePrefix("cluster c3 (wave 2): Component fleet/web-c3\nerror: "))
			Expect(sections["c1"]).To(ContainSubstring("Summary: 0 to create, 0 to update, 0 to delete, 2 unchanged\n"), "the others are previewed")
		})).To(Succeed())
		Eventually(greeting).WithArguments(2).WithTimeout(timeout).Should(Equal("v4"))
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
	})

	It("writes nothing while paused, and goes on when resumed", func() {
		hub.Update(set, func(s *v1alpha1.ComponentSet) {
			s.Spec.Paused = true
			s.Spec.Template.Spec.Values = fleettest.Values("v5")
		})
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("False/Paused"))
		Expect(hub.Get(set).Status.Clusters).To(ConsistOf(HavePrefix("c1 (wave 1): Paused: would write the new template"),
			HavePrefix("c2 (wave 2): Paused: would write the new template"), HavePrefix("c3 (wave 2): Paused: would write the new template")),
			"a paused set's lines say it is paused and what it would do, not that a template is being written")
		Consistently(func() []string { return []string{greeting(0), greeting(1), greeting(2)} }).WithTimeout(3 * time.Second).
			Should(Equal([]string{"v4", "v4", "v4"}))
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Paused = false })
		for i := range clusters {
			Eventually(greeting).WithArguments(i).WithTimeout(timeout).Should(Equal("v5"))
		}
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
	})

	It("removes nothing while it cannot list the cluster Secrets, and removes a cluster that left once it can", func() {
		role := &rbacv1.ClusterRole{}
		Expect(hub.Client.Get(ctx, client.ObjectKey{Name: "wavekit-component-operator"}, role)).To(Succeed())
		saved := slices.Clone(role.Rules)
		var rules []rbacv1.PolicyRule
		for _, r := range role.Rules {
			r.Resources = slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == "secrets" })
			if len(r.Resources) > 0 {
				rules = append(rules, r)
			}
		}
		role.Rules = rules
		Expect(hub.Client.Update(ctx, role)).To(Succeed())
		asOperator, err := client.New(operatorConfig, client.Options{Scheme: hub.Scheme})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() bool {
			return apierrors.IsForbidden(asOperator.List(ctx, &corev1.SecretList{}, client.InNamespace(ns)))
		}).WithTimeout(timeout).Should(BeTrue())

		hub.Update(set, func(s *v1alpha1.ComponentSet) {
			s.Spec.Placement.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{
				{Key: "name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"c3"}}}
		})
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("False/ClusterListFailed"))
		Expect(meta(hub.Get(set), component.ConditionReady).Message).To(ContainSubstring("forbidden"))
		Eventually(hub.EventReasons).WithArguments(set).WithTimeout(timeout).Should(ContainElement("ClusterListFailed"))
		Consistently(func() string { return componentState("web-c3") + "/" + greeting(2) }).WithTimeout(3*time.Second).
			Should(Equal("present/v5"), "a list that failed removes nothing")

		role.Rules = saved
		Expect(hub.Client.Update(ctx, role)).To(Succeed())
		Eventually(componentState).WithArguments("web-c3").WithTimeout(timeout).Should(Equal("gone"))
		Eventually(greeting).WithArguments(2).WithTimeout(timeout).Should(Equal("gone"))

		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Placement.ClusterSelector.MatchExpressions = nil })
		Eventually(greeting).WithArguments(2).WithTimeout(timeout).Should(Equal("v5"))
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
	})

	It("removes the objects of a cluster relabelled out of the selection", func() {
		hub.Relabel(ns, clusterName(1), "gone")
		Eventually(componentState).WithArguments("web-c2").WithTimeout(timeout).Should(Equal("gone"))
		Eventually(greeting).WithArguments(1).WithTimeout(timeout).Should(Equal("gone"))
		Eventually(func() int32 { return hub.Get(set).Status.Rollout.Clusters }).WithTimeout(timeout).Should(Equal(int32(2)))

		widened := hub.Get(set)
		widened.Spec.Placement.ClusterSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "fleet", Operator: metav1.LabelSelectorOpIn, Values: []string{"demo", "gone"}}}}
		r := diffSet("-f", writeSet(widened))
		Expect(r.code).To(Equal(1), r.stderr)
		sections := clusterSections(r.stdout)
		Expect(sections["c2"]).To(HavePrefix("cluster c2 (wave 2, joins the selection): Component fleet/web-c2\n"))
		Expect(sections["c2"]).To(ContainSubstring("+ create ConfigMap fleet/web-config\n"))
		Expect(r.stdout).To(HaveSuffix("Clusters: 1 to change, 2 unchanged, 0 to leave, 0 not previewed\n"))

		hub.Relabel(ns, clusterName(1), "demo")
		Eventually(greeting).WithArguments(1).WithTimeout(timeout).Should(Equal("v5"))
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
	})

	It("leaves the Component and objects of a cluster that leaves under removalPolicy Orphan", func() {
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.RemovalPolicy = v1alpha1.RemovalOrphan })
		// The cluster leaves once the operator has read the new policy: a
		// departure seen before it is, rightly, a Delete.
		Eventually(func() int64 {
			got := &v1alpha1.ComponentSet{}
			Expect(hub.Client.Get(ctx, client.ObjectKeyFromObject(set), got)).To(Succeed())
			return got.Status.ObservedGeneration - got.Generation
		}).WithTimeout(timeout).Should(BeZero(), "the operator read the Orphan policy")
		hub.Relabel(ns, clusterName(1), "gone")
		released := func() bool {
			var c v1alpha1.Component
			Expect(hub.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-c2"}, &c)).To(Succeed())
			return metav1.GetControllerOf(&c) == nil
		}
		Eventually(released).WithTimeout(timeout).Should(BeTrue())
		Expect(greeting(1)).To(Equal("v5"))

		// Released, it is the user's: deleting it deletes its objects, and
		// the cluster back in the selection gets a Component of the set.
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.RemovalPolicy = "" })
		Expect(hub.Client.Delete(ctx, &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-c2"}})).To(Succeed())
		Eventually(greeting).WithArguments(1).WithTimeout(timeout).Should(Equal("gone"))
		Eventually(componentState).WithArguments("web-c2").WithTimeout(timeout).Should(Equal("gone"))
		hub.Relabel(ns, clusterName(1), "demo")
		Eventually(greeting).WithArguments(1).WithTimeout(timeout).Should(Equal("v5"))
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
	})

	It("deletes the clusters' objects in reverse waves when the set is deleted, and leaves behind a cluster that does not answer", func() {
		// A finalizer of the test keeps the Component of c3 (main wave)
		// after its objects are gone, so the canary's must wait for it;
		// c2's API server (main wave) is down for longer than the set's
		// unreachableTimeout, so the deletion leaves its Component behind.
		const testFinalizer = "test.wavekit.dev/hold"
		c3 := &v1alpha1.Component{}
		Expect(hub.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-c3"}, c3)).To(Succeed())
		controllerutil.AddFinalizer(c3, testFinalizer)
		Expect(hub.Client.Update(ctx, c3)).To(Succeed())
		hub.Update(set, func(s *v1alpha1.ComponentSet) {
			s.Spec.UnreachableTimeout = &metav1.Duration{Duration: 5 * time.Second}
		})

		downCtx, cancel := context.WithTimeout(ctx, 4*time.Minute)
		defer cancel()
		Expect(clusters[1].RestartAPIServer(downCtx, func() {
			Expect(hub.Client.Delete(ctx, set)).To(Succeed())
			Eventually(greeting).WithArguments(2).WithTimeout(timeout).Should(Equal("gone"))
			Eventually(func() string {
				return componentAnnotation("web-c2", "wavekit.dev/set-left-behind")
			}).WithTimeout(timeout).ShouldNot(BeEmpty(), "c2 does not answer past the timeout: the deletion goes on without it")
			Consistently(func() string { return componentState("web-c1") + "/" + greeting(0) }).WithTimeout(3*time.Second).
				Should(Equal("present/v5"), "the canary's wave waits for the main wave's c3")
			Expect(meta(hub.Get(set), component.ConditionReady).Message).To(ContainSubstring("deleting cluster wave 2"))

			Expect(hub.Client.Get(ctx, client.ObjectKeyFromObject(c3), c3)).To(Succeed())
			controllerutil.RemoveFinalizer(c3, testFinalizer)
			Expect(hub.Client.Update(ctx, c3)).To(Succeed())
			Eventually(greeting).WithArguments(0).WithTimeout(timeout).Should(Equal("gone"))
			Eventually(func() bool {
				return apierrors.IsNotFound(hub.Client.Get(ctx, client.ObjectKeyFromObject(set), &v1alpha1.ComponentSet{}))
			}).WithTimeout(timeout).Should(BeTrue())
			Expect(hub.EventNotes(set, "LeftBehind")).To(ContainElement(ContainSubstring("web-c2")), "the set says what it left behind")
			Expect(componentState("web-c2")).To(Equal("deleting"), "left behind, not forgotten")
		})).To(Succeed())
		Eventually(greeting).WithArguments(1).WithTimeout(timeout).Should(Equal("gone"), "the cluster's objects go once it answers")
		Eventually(componentState).WithArguments("web-c2").WithTimeout(timeout).Should(Equal("gone"))
	})
})

// componentAnnotation is the annotation key of the Component name, "" when
// it has none or is gone.
func componentAnnotation(name, key string) string {
	var c v1alpha1.Component
	if err := hub.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &c); err != nil {
		return ""
	}
	return c.Annotations[key]
}

func clusterName(i int) string { return fmt.Sprintf("c%d", i+1) }

// greeting is the greeting of the ConfigMap on cluster i, or "gone".
func greeting(i int) string { return fleettest.Greeting(clusters[i], ns, "web-config") }

// hold sets or removes the hold annotation on the ConfigMap of cluster i.
func hold(i int, on bool) {
	GinkgoHelper()
	Eventually(func() error {
		var cm corev1.ConfigMap
		if err := clusters[i].Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-config"}, &cm); err != nil {
			return err
		}
		if on {
			if cm.Annotations == nil {
				cm.Annotations = map[string]string{}
			}
			cm.Annotations[holdAnnotation] = "true"
		} else {
			delete(cm.Annotations, holdAnnotation)
		}
		return clusters[i].Client.Update(ctx, &cm)
	}).WithTimeout(timeout).Should(Succeed())
}

// meta is the set's condition of type kind (nil if it has none).
func meta(set *v1alpha1.ComponentSet, kind string) *metav1.Condition {
	for i := range set.Status.Conditions {
		if set.Status.Conditions[i].Type == kind {
			return &set.Status.Conditions[i]
		}
	}
	return nil
}

// componentReady is the Ready condition of the Component name (a zero one
// when it has none).
func componentReady(name string) metav1.Condition {
	GinkgoHelper()
	ready, err := componentReadyIn(ns, name)
	Expect(err).NotTo(HaveOccurred())
	return ready
}

// componentReadyIn is the Ready condition of the Component namespace/name
// (a zero one when it has none), and the error of reading it: polled, a
// Component the set has not created yet is tried again, not a failure.
func componentReadyIn(namespace, name string) (metav1.Condition, error) {
	var c v1alpha1.Component
	if err := hub.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &c); err != nil {
		return metav1.Condition{}, err
	}
	if ready := c.Status.ReadyCondition(); ready != nil {
		return *ready, nil
	}
	return metav1.Condition{}, nil
}

// componentState is "present", "deleting" or "gone".
func componentState(name string) string { return componentStateIn(ns, name) }

// componentStateIn is "present", "deleting" or "gone" for the Component
// namespace/name.
func componentStateIn(namespace, name string) string {
	var c v1alpha1.Component
	err := hub.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &c)
	switch {
	case apierrors.IsNotFound(err):
		return "gone"
	case err != nil:
		return "error: " + err.Error()
	case !c.DeletionTimestamp.IsZero():
		return "deleting"
	}
	return "present"
}
