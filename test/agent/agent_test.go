package agent_test

import (
	"bytes"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/testing/fleettest"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("a ComponentSet over three pulled clusters and two pushed ones, in two waves", Ordered, func() {
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}

	BeforeAll(func() {
		set.Spec = v1alpha1.ComponentSetSpec{
			Template: v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{
				Source: "site",
				Values: fleettest.Values("v1"),
				HealthChecks: []manifests.HealthCheck{{
					APIVersion: "v1", Kind: "ConfigMap", Failed: "self.data.greeting == 'broken'",
				}},
				Remediation: &component.Remediation{Strategy: component.RemediateRollback},
			}},
			Placement: &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": "demo"}}},
			Rollout:   v1alpha1.Rollout{WaveLabel: "wave", WaveOrder: []string{"canary", "main"}},
		}
		Expect(hub.Client.Create(ctx, set)).To(Succeed())
	})

	It("installs on every cluster; a pulled cluster's Component is a ComponentWork on the hub, run by its agent", func() {
		for i := range members {
			Eventually(fleettest.ConfigData).WithArguments(members[i], ns, "web-config").WithTimeout(timeout).Should(And(
				HaveKeyWithValue("greeting", "v1"), HaveKeyWithValue("cluster", clusterName(i))), "cluster %s", clusterName(i))
		}
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		got := hub.Get(set)
		Expect(got.Status.Rollout).To(Equal(v1alpha1.RolloutStatus{Wave: 2, Waves: 2, Clusters: 5, Ready: 5}))
		Expect(got.Status.Clusters).To(ConsistOf(HavePrefix("p1 (wave 1): Ready"), HavePrefix("p2 (wave 2): Ready"),
			HavePrefix("p3 (wave 2): Ready"), HavePrefix("c4 (wave 2): Ready"), HavePrefix("c5 (wave 2): Ready")))

		var components v1alpha1.ComponentList
		Expect(hub.Client.List(ctx, &components, client.InNamespace(ns))).To(Succeed())
		Expect(components.Items).To(ConsistOf(HaveField("Name", "web-c4"), HaveField("Name", "web-c5")),
			"only the pushed clusters have a Component on the hub")

		w := work("p1")
		Expect(w.Spec.Component.KubeConfig).To(BeNil(), "no credential of a pulled cluster")
		Expect(w.Spec.Name).To(Equal("web-p1"))
		Expect(w.Status.ObservedGeneration).To(Equal(w.Generation))
		Expect(w.Status.Inventory.Objects).To(BeNumerically(">=", 1))
		Expect(w.Status.RenderDigest).To(HavePrefix("sha256:"))
		local := &v1alpha1.Component{}
		Expect(members[0].Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-p1"}, local)).To(Succeed())
		Expect(local.Status.ReadyCondition()).To(HaveField("Status", metav1.ConditionTrue), "the Component runs on the member")
	})

	It("previews the pushed clusters with wavekit diff componentset and says the pulled ones are not reached", func() {
		var stdout, stderr bytes.Buffer
		code := cli.Run(ctx, []string{"--kubeconfig", admin, "diff", "componentset", ns + "/web", "--source", "site=" + siteSource()}, &stdout, &stderr)
		Expect(code).To(Equal(2), stdout.String()+stderr.String())
		Expect(stdout.String()).To(ContainSubstring("cluster p1 (wave 1): Component fleet/web-p1\nerror: a pulled cluster: its agent renders the Component in the cluster"))
		Expect(stdout.String()).To(ContainSubstring("cluster c4 (wave 2): Component fleet/web-c4\n"))
		Expect(stdout.String()).To(HaveSuffix("Clusters: 0 to change, 2 unchanged, 0 to leave, 3 not previewed\n"))
	})

	It("holds the second wave at a failing pulled canary, which rolls back, and goes on with a good template", func() {
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("broken") })
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("False/Failed"))
		got := hub.Get(set)
		Expect(got.Status.Rollout).To(HaveField("Failed", int32(1)))
		Expect(got.Status.Clusters[0]).To(HavePrefix("p1 (wave 1): Failed"))
		Eventually(greeting).WithArguments(0).WithTimeout(timeout).Should(Equal("v1"), "the canary is rolled back")
		Consistently(func() []string { return []string{greeting(1), greeting(2), greeting(3), greeting(4)} }).WithTimeout(3*time.Second).
			Should(Equal([]string{"v1", "v1", "v1", "v1"}), "the second wave keeps the old render")
		Expect(work("p2").Spec.Component.Values).To(Equal(valuesWithCluster("v1", "p2")), "the second wave's work is not written")

		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("v2") })
		for i := range members {
			Eventually(greeting).WithArguments(i).WithTimeout(timeout).Should(Equal("v2"))
		}
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
	})

	It("reports a killed agent's cluster Unknown, finishes the others, and catches it up when the agent is back", func() {
		before := greeting(1)
		agents["p2"].stop()
		Eventually(func() v1alpha1.RolloutStatus { return hub.Get(set).Status.Rollout }).WithTimeout(timeout).
			Should(HaveField("Unreachable", int32(1)))
		Expect(hub.Get(set).Status.Clusters[0]).To(HavePrefix("p2 (wave 2): Unreachable: the cluster's agent has not renewed its Lease"))

		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("v3") })
		for _, i := range []int{0, 2, 3, 4} {
			Eventually(greeting).WithArguments(i).WithTimeout(timeout).Should(Equal("v3"), "cluster %s", clusterName(i))
		}
		Eventually(func() v1alpha1.RolloutStatus { return hub.Get(set).Status.Rollout }).WithTimeout(timeout).Should(And(
			HaveField("Unreachable", int32(1)), HaveField("Ready", int32(4))))
		Expect(greeting(1)).To(Equal(before), "the silent cluster keeps what it had")

		agents["p2"] = startAgent("p2", fleet.WorkNamespace(ns, "p2"), members[1])
		Eventually(greeting).WithArguments(1).WithTimeout(timeout).Should(Equal("v3"))
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
	})

	It("keeps a cluster that lost the hub as last applied and corrects its drift, then reports again", func() {
		applied := greeting(0)
		p1Link.Cut(15 * time.Second)
		Eventually(func() []string { return hub.Get(set).Status.Clusters }).WithTimeout(timeout).Should(ContainElement(
			HavePrefix("p1 (wave 1): Unreachable")))
		var cm corev1.ConfigMap
		Expect(members[0].Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-config"}, &cm)).To(Succeed())
		cm.Data["greeting"] = "changed by hand"
		Expect(members[0].Client.Update(ctx, &cm)).To(Succeed())
		Eventually(greeting).WithArguments(0).WithTimeout(timeout).Should(Equal(applied), "drift is corrected without the hub")
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		Expect(hub.Get(set).Status.Rollout.Unreachable).To(BeZero())
	})

	It("refuses an agent's credential another cluster's work and status, its own work's spec, and the sets' Secrets", func() {
		Eventually(agentToken).WithArguments("p1").WithTimeout(timeout).
			ShouldNot(Equal(credentials["p1"].BearerToken), "the agent renews its token, and keeps it in its cluster")
		thief := hubAs("p1")
		other := work("p2")
		Expect(thief.Get(ctx, client.ObjectKeyFromObject(other), &v1alpha1.ComponentWork{})).To(Satisfy(apierrors.IsForbidden))
		Expect(thief.List(ctx, &v1alpha1.ComponentWorkList{}, client.InNamespace(other.Namespace))).To(Satisfy(apierrors.IsForbidden))
		forged := other.DeepCopy()
		forged.Status.Conditions = nil
		Expect(thief.Status().Update(ctx, forged)).To(Satisfy(apierrors.IsForbidden), "another cluster's status")
		own := work("p1")
		own.Spec.Component.Values = fleettest.Values("forged")
		Expect(thief.Update(ctx, own)).To(Satisfy(apierrors.IsForbidden), "its own work's spec is the hub's")
		Expect(thief.List(ctx, &corev1.SecretList{}, client.InNamespace(ns))).To(Satisfy(apierrors.IsForbidden))
		Expect(thief.List(ctx, &v1alpha1.ComponentSetList{}, client.InNamespace(ns))).To(Satisfy(apierrors.IsForbidden))
		Expect(hubAs("p1").Get(ctx, client.ObjectKeyFromObject(own), &v1alpha1.ComponentWork{})).To(Succeed(), "its own work it reads")
	})

	It("deletes a pulled cluster's Component and objects when it leaves the set, then its work", func() {
		hub.Relabel(ns, "p2", "elsewhere")
		Eventually(greeting).WithArguments(1).WithTimeout(timeout).Should(Equal("gone"))
		Eventually(func() error {
			return hub.Client.Get(ctx, client.ObjectKey{Namespace: fleet.WorkNamespace(ns, "p2"), Name: "web"}, &v1alpha1.ComponentWork{})
		}).WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound))
		Expect(members[1].Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-p2"}, &v1alpha1.Component{})).To(Satisfy(apierrors.IsNotFound))
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		Expect(hub.Get(set).Status.Rollout.Clusters).To(Equal(int32(4)))
	})

	It("rolls a change over two pulled and two pushed clusters, the pulled canary first", func() {
		Expect(hub.Get(set).Status.Clusters).To(ConsistOf(HavePrefix("p1 (wave 1): Ready"), HavePrefix("p3 (wave 2): Ready"),
			HavePrefix("c4 (wave 2): Ready"), HavePrefix("c5 (wave 2): Ready")))
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("v4") })
		for _, i := range []int{0, 2, 3, 4} {
			Eventually(greeting).WithArguments(i).WithTimeout(timeout).Should(Equal("v4"), "cluster %s", clusterName(i))
		}
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		Expect(hub.Get(set).Status.Rollout).To(Equal(v1alpha1.RolloutStatus{Wave: 2, Waves: 2, Clusters: 4, Ready: 4}))
		Expect(greeting(1)).To(Equal("gone"), "the cluster that left has nothing")
	})

	It("leaves a silent agent's cluster behind when it leaves, never stranded: the agent removes it when it is back", func() {
		hub.Update(set, func(s *v1alpha1.ComponentSet) {
			s.Spec.UnreachableTimeout = &metav1.Duration{Duration: 3 * time.Second}
		})
		hub.Relabel(ns, "p2", "demo")
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		Eventually(greeting).WithArguments(1).WithTimeout(timeout).ShouldNot(Equal("gone"))
		Eventually(func() int32 { return hub.Get(set).Status.Rollout.Ready }).WithTimeout(timeout).Should(Equal(int32(5)))
		agents["p2"].stop()
		Eventually(func() int32 { return hub.Get(set).Status.Rollout.Unreachable }).WithTimeout(timeout).Should(Equal(int32(1)))

		hub.Relabel(ns, "p2", "elsewhere")
		Eventually(func() []string { return hub.Get(set).Status.Clusters }).WithTimeout(timeout).Should(ContainElement(
			HavePrefix("p2 (left behind): its agent has not answered for 3s")))
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		Expect(work("p2").Spec.Removal).To(Equal(v1alpha1.WorkRemovalDelete), "the work stays, asking")
		Eventually(hub.EventReasons).WithArguments(set).WithTimeout(timeout).Should(ContainElement("LeftBehind"))
		Expect(greeting(1)).NotTo(Equal("gone"), "nothing is deleted while the agent is away")

		agents["p2"] = startAgent("p2", fleet.WorkNamespace(ns, "p2"), members[1])
		Eventually(greeting).WithArguments(1).WithTimeout(timeout).Should(Equal("gone"))
		Eventually(func() error {
			return hub.Client.Get(ctx, client.ObjectKey{Namespace: fleet.WorkNamespace(ns, "p2"), Name: "web"}, &v1alpha1.ComponentWork{})
		}).WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound))
	})

	It("releases a pulled cluster's Component under removalPolicy Orphan: it stays on the cluster with its objects", func() {
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.RemovalPolicy = v1alpha1.RemovalOrphan })
		// The cluster leaves only once the hub has read the new policy: its
		// caches of the set and of the cluster Secrets are apart, and a
		// departure seen before the policy is, rightly, a Delete.
		Eventually(func() int64 {
			got := &v1alpha1.ComponentSet{}
			Expect(hub.Client.Get(ctx, client.ObjectKeyFromObject(set), got)).To(Succeed())
			return got.Status.ObservedGeneration - got.Generation
		}).WithTimeout(timeout).Should(BeZero(), "the hub read the Orphan policy")
		kept := greeting(0)
		hub.Relabel(ns, "p1", "elsewhere")
		Eventually(func() error {
			return hub.Client.Get(ctx, client.ObjectKey{Namespace: fleet.WorkNamespace(ns, "p1"), Name: "web"}, &v1alpha1.ComponentWork{})
		}).WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound))
		Eventually(func() map[string]string {
			local := &v1alpha1.Component{}
			Expect(members[0].Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-p1"}, local)).To(Succeed())
			return local.Labels
		}).WithTimeout(timeout).ShouldNot(HaveKey("wavekit.dev/agent-work"), "released: no agent writes it")
		Consistently(greeting).WithArguments(0).WithTimeout(3 * time.Second).Should(Equal(kept))
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.RemovalPolicy = v1alpha1.RemovalDelete })
	})

	It("deletes the set: the clusters' Components go with it", func() {
		Expect(hub.Client.Delete(ctx, set)).To(Succeed())
		for _, i := range []int{2, 3, 4} { // p1's was released, p2 left
			Eventually(greeting).WithArguments(i).WithTimeout(timeout).Should(Equal("gone"), "cluster %s", clusterName(i))
		}
		Eventually(func() error { return hub.Client.Get(ctx, client.ObjectKeyFromObject(set), &v1alpha1.ComponentSet{}) }).
			WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound))
		var works v1alpha1.ComponentWorkList
		Expect(hub.Client.List(ctx, &works)).To(Succeed())
		Expect(works.Items).To(BeEmpty())
	})
})

func clusterName(i int) string { return clusterNames[i] }

// valuesWithCluster are the values the set gives cluster for greeting.
func valuesWithCluster(greeting, cluster string) *apiextensionsv1.JSON {
	return fleettest.ValuesWith(greeting, map[string]any{"cluster": map[string]any{
		"name": cluster, "labels": map[string]string{"fleet": "demo", "wave": waveOf(cluster),
			"wavekit.dev/cluster": "true", "wavekit.dev/pull": "true"}, "annotations": map[string]string{}}})
}

// greeting is the greeting of the set's ConfigMap on member i, or "gone".
func greeting(i int) string { return fleettest.Greeting(members[i], ns, "web-config") }

// work is the set's ComponentWork of the pulled cluster.
func work(cluster string) *v1alpha1.ComponentWork {
	GinkgoHelper()
	w := &v1alpha1.ComponentWork{}
	Expect(hub.Client.Get(ctx, client.ObjectKey{Namespace: fleet.WorkNamespace(ns, cluster), Name: "web"}, w)).To(Succeed())
	return w
}
