package fleet_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/fleettest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

const (
	edgesNS = "edges"
	// connectingBound is how long a new cluster may stay connecting before
	// it counts as unreachable (docs/fleet.md); the specs allow passes of
	// the set and of the Component on a busy machine beyond it.
	connectingBound = 10 * time.Second
	boundSlack      = 30 * time.Second
)

// The same three API servers as the other specs, in a namespace of their
// own: east (clusters[0]) and west (clusters[1], through a proxy the spec
// cuts) in wave first, the Cluster API cluster north (clusters[2]) in wave
// last.
var _ = Describe("clusters that leave by their credentials, and clusters that never answer", Ordered, func() {
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: edgesNS, Name: "edge"}}
	var west *tcpProxy
	edgeLabels := func(wave string) map[string]string {
		return map[string]string{clusterLabel: "true", "fleet": "edge", "wave": wave}
	}

	BeforeAll(func() {
		Expect(hub.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: edgesNS}})).To(Succeed())
		east, err := clusters[0].KubeconfigSecret(edgesNS, "east", edgeLabels("first"))
		Expect(err).NotTo(HaveOccurred())
		Expect(hub.Client.Create(ctx, east)).To(Succeed())
		west = startProxy(hostPort(clusters[1].Config))
		Expect(hub.Client.Create(ctx, kubeconfigSecretAt(clusters[1], west.address(), edgesNS, "west", edgeLabels("first")))).To(Succeed())
		createCAPICluster(edgesNS, "north", map[string]string{"fleet": "edge", "wave": "last"}, clusters[2])

		set.Spec = v1alpha1.ComponentSetSpec{
			Template:           v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site", Values: fleettest.Values("v1")}},
			Placement:          &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": "edge"}}},
			Rollout:            v1alpha1.Rollout{WaveLabel: "wave", WaveOrder: []string{"first", "last"}, MaxUnavailable: ptr.To(intstr.FromInt32(3))},
			UnreachableTimeout: &metav1.Duration{Duration: 2 * time.Second},
		}
		Expect(hub.Client.Create(ctx, set)).To(Succeed())
		for i := range clusters {
			Eventually(edgeGreeting).WithArguments(i).WithTimeout(timeout).Should(Equal("v1"))
		}
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		DeferCleanup(func() { Expect(client.IgnoreNotFound(hub.Client.Delete(ctx, set))).To(Succeed()) })
	})

	It("counts clusters that never answered as unreachable, by their reason, within the connecting bound, and rolls on past them", func() {
		dead := map[string]string{"refused": refusedAddress(), "reset": hangUpAddress(true), "closed": hangUpAddress(false)}
		for name, address := range dead {
			Expect(hub.Client.Create(ctx, kubeconfigSecretAt(clusters[0], address, edgesNS, name, edgeLabels("first")))).To(Succeed())
		}
		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Template.Spec.Values = fleettest.Values("v2") })
		for name := range dead {
			Eventually(componentReadyIn).WithArguments(edgesNS, "edge-"+name).WithTimeout(connectingBound+boundSlack).
				Should(HaveField("Reason", component.ReasonTargetUnreachable), "cluster %s", name)
		}
		Eventually(edgeGreeting).WithArguments(2).WithTimeout(timeout).Should(Equal("v2"),
			"three unreachable clusters within maxUnavailable 3 do not hold the last wave")
		Eventually(func() v1alpha1.RolloutStatus { return hub.Get(set).Status.Rollout }).WithTimeout(timeout).Should(And(
			HaveField("Unreachable", int32(3)), HaveField("Ready", int32(3))))
		Expect(hub.Get(set).Status.Clusters).To(ContainElements(HavePrefix("closed (wave 1): Unreachable: "),
			HavePrefix("refused (wave 1): Unreachable: "), HavePrefix("reset (wave 1): Unreachable: ")))

		for name := range dead {
			Expect(hub.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: edgesNS, Name: name}})).To(Succeed())
		}
		for name := range dead {
			Eventually(componentStateIn).WithArguments(edgesNS, "edge-"+name).WithTimeout(timeout).Should(Equal("gone"),
				"a cluster that never answered and left holds nothing")
		}
		// The set was Ready before (three unreachable within maxUnavailable):
		// wait for the pass that saw them go, not for Ready alone.
		Eventually(func(g Gomega) {
			g.Expect(hub.ReadyReason(set)).To(Equal("True/Ready"))
			g.Expect(hub.Get(set).Status.Clusters).To(HaveLen(3), "nothing was left on a cluster that never had anything")
		}).WithTimeout(timeout).Should(Succeed())
	})

	It("deletes the objects of a cluster whose Secret is deleted, with the set's copy of its kubeconfig, and then drops the copy", func() {
		copied := &corev1.Secret{}
		Eventually(func() error {
			return hub.Client.Get(ctx, client.ObjectKey{Namespace: edgesNS, Name: "edge-east.set.kubeconfig"}, copied)
		}).WithTimeout(timeout).Should(Succeed())
		Expect(copied.Data).To(HaveLen(1), "only the kubeconfig")
		Expect(copied.Data).To(HaveKey("value"))
		Expect(copied.Labels).NotTo(HaveKey(clusterLabel), "a copy is no cluster")
		Expect(copied.Annotations).NotTo(HaveKey(corev1.LastAppliedConfigAnnotation))
		Expect(copied.OwnerReferences).To(ConsistOf(And(HaveField("Kind", "Component"), HaveField("Name", "edge-east"))),
			"it goes with the Component")
		Expect(copied.Labels).To(HaveKeyWithValue("wavekit.dev/set-copy", "true"), "the label its cache selects")

		By("a copy made before copies carried their label is labelled, the same Secret, at the next pass")
		unlabelled := client.MergeFrom(copied.DeepCopy())
		delete(copied.Labels, "wavekit.dev/set-copy")
		Expect(hub.Client.Patch(ctx, copied, unlabelled)).To(Succeed())
		east := &corev1.Secret{}
		Expect(hub.Client.Get(ctx, client.ObjectKey{Namespace: edgesNS, Name: "east"}, east)).To(Succeed())
		touched := client.MergeFrom(east.DeepCopy())
		east.Annotations = map[string]string{"touched": "relabel"}
		Expect(hub.Client.Patch(ctx, east, touched)).To(Succeed()) // a pass
		Eventually(func(g Gomega) {
			relabelled := &corev1.Secret{}
			g.Expect(hub.Client.Get(ctx, client.ObjectKeyFromObject(copied), relabelled)).To(Succeed())
			g.Expect(relabelled.Labels).To(HaveKeyWithValue("wavekit.dev/set-copy", "true"))
			g.Expect(relabelled.UID).To(Equal(copied.UID))
		}).WithTimeout(timeout).Should(Succeed())

		Expect(hub.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: edgesNS, Name: "east"}})).To(Succeed())
		Eventually(edgeGreeting).WithArguments(0).WithTimeout(timeout).Should(Equal("gone"))
		Eventually(componentStateIn).WithArguments(edgesNS, "edge-east").WithTimeout(timeout).Should(Equal("gone"))
		Eventually(func() bool {
			return apierrors.IsNotFound(hub.Client.Get(ctx, client.ObjectKeyFromObject(copied), &corev1.Secret{}))
		}).WithTimeout(timeout).Should(BeTrue(), "the copy goes with the Component")
		// The set was Ready before: wait for the pass that saw east go.
		Eventually(func(g Gomega) {
			g.Expect(hub.ReadyReason(set)).To(Equal("True/Ready"))
			g.Expect(hub.Get(set).Status.Clusters).NotTo(ContainElement(HavePrefix("east")))
		}).WithTimeout(timeout).Should(Succeed())
	})

	It("deletes the objects of a Cluster API cluster whose Cluster is deleted with its Secret", func() {
		// Foreground: the garbage collector deletes the kubeconfig Secret
		// (owned by the Cluster) before the Cluster, so the Secret is gone
		// whichever the set sees first.
		Expect(hub.Client.Delete(ctx, capiCluster(edgesNS, "north"), client.PropagationPolicy(metav1.DeletePropagationForeground))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(hub.Client.Get(ctx, client.ObjectKey{Namespace: edgesNS, Name: "north-kubeconfig"}, &corev1.Secret{}))
		}).WithTimeout(timeout).Should(BeTrue())
		Eventually(edgeGreeting).WithArguments(2).WithTimeout(timeout).Should(Equal("gone"))
		Eventually(componentStateIn).WithArguments(edgesNS, "edge-north").WithTimeout(timeout).Should(Equal("gone"))
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
	})

	It("releases a cluster that no longer answers when its Secret is deleted, and names the objects left there in an Event and a status line", func() {
		west.cut()
		Expect(hub.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: edgesNS, Name: "west"}})).To(Succeed())
		Eventually(componentStateIn).WithArguments(edgesNS, "edge-west").WithTimeout(timeout).Should(Equal("gone"),
			"released past unreachableTimeout, not stuck in deletion")
		Eventually(hub.EventNotes).WithArguments(set, "ObjectsLeft").WithTimeout(timeout).Should(ContainElement(And(
			ContainSubstring("west"), ContainSubstring("ConfigMap edges/edge-config"))))
		Eventually(func() []string { return hub.Get(set).Status.Clusters }).WithTimeout(timeout).Should(ContainElement(And(
			HavePrefix("west (left): "), ContainSubstring("ConfigMap edges/edge-config"))))
		Expect(hub.Get(set).Status.LeftClusters).To(ConsistOf(And(HaveField("Cluster", "west"), HaveField("Component", "edge-west"),
			HaveField("Objects", ContainElement("ConfigMap edges/edge-config")))))
		Expect(meta(hub.Get(set), component.ConditionReady).Message).To(ContainSubstring("west"), "never a silent Ready")
		Expect(edgeGreeting(1)).To(Equal("v2"), "the objects stay where they are")
	})
})

// capiCluster is the Cluster API Cluster namespace/name, as far as a test
// writes it.
func capiCluster(namespace, name string) *unstructured.Unstructured {
	c := &unstructured.Unstructured{}
	c.SetAPIVersion("cluster.x-k8s.io/v1beta1")
	c.SetKind("Cluster")
	c.SetNamespace(namespace)
	c.SetName(name)
	return c
}

// createCAPICluster registers e as Cluster API registers a cluster: a
// Cluster namespace/name with labels, and its Secret <name>-kubeconfig,
// owned by the Cluster.
func createCAPICluster(namespace, name string, labels map[string]string, e *testcluster.Env) {
	GinkgoHelper()
	capi := capiCluster(namespace, name)
	capi.SetLabels(labels)
	Expect(hub.Client.Create(ctx, capi)).To(Succeed())
	secret, err := e.KubeconfigSecret(namespace, name+"-kubeconfig", map[string]string{"cluster.x-k8s.io/cluster-name": name})
	Expect(err).NotTo(HaveOccurred())
	secret.Type = "cluster.x-k8s.io/secret"
	secret.OwnerReferences = []metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta1", Kind: "Cluster",
		Name: name, UID: capi.GetUID()}}
	Expect(hub.Client.Create(ctx, secret)).To(Succeed())
}

// edgeGreeting is the greeting of the edges set's ConfigMap on cluster i,
// or "gone".
func edgeGreeting(i int) string { return fleettest.Greeting(clusters[i], edgesNS, "edge-config") }
