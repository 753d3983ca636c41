package fleet_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// inputsNS holds the sets with spec.inputs, and on the hub the objects of
// their members without placement.
const inputsNS = "inputs"

var _ = Describe("a ComponentSet with inputs", Ordered, func() {
	BeforeAll(func() {
		Expect(hub.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: inputsNS}})).To(Succeed())
	})

	It("makes one member per list entry on the operator's cluster, and removes only the member of an entry that goes", func() {
		set := inputSet("tenants", "tenant-${input.id}", nil, `{"id":"a"}`, `{"id":"b","size":"large"}`, `{"id":"c"}`)
		Expect(hub.Client.Create(ctx, set)).To(Succeed())
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		got := hub.Get(set)
		Expect(meta(got, component.ConditionReady).Message).To(HavePrefix("3 of 3 members Ready"))
		Expect(got.Status.Inputs).To(Equal(&v1alpha1.InputsStatus{Count: 3}))
		Expect(got.Status.Clusters).To(ConsistOf(HavePrefix("tenant-a (wave 1): Ready"), HavePrefix("tenant-b (wave 1): Ready"), HavePrefix("tenant-c (wave 1): Ready")))
		Expect(hubConfigMap("tenant-b")).To(And(HaveKeyWithValue("tenant", "b"), HaveKeyWithValue("size", "large"), HaveKeyWithValue("cluster", "hub")))
		Expect(hubConfigMap("tenant-a")).To(HaveKeyWithValue("size", "small"))
		kept := map[string]types.UID{}
		for _, name := range []string{"tenant-a", "tenant-c"} {
			var c v1alpha1.Component
			Expect(hub.Client.Get(ctx, client.ObjectKey{Namespace: inputsNS, Name: name}, &c)).To(Succeed())
			Expect(metav1.IsControlledBy(&c, got)).To(BeTrue())
			Expect(c.Spec.KubeConfig).To(BeNil(), "a member on the operator's cluster")
			kept[name] = c.UID
		}

		hub.Update(set, func(s *v1alpha1.ComponentSet) { s.Spec.Inputs.List = entries(`{"id":"a"}`, `{"id":"c"}`) })
		Eventually(hubConfigMap).WithArguments("tenant-b").WithTimeout(timeout).Should(BeNil())
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		for name, uid := range kept {
			var c v1alpha1.Component
			Expect(hub.Client.Get(ctx, client.ObjectKey{Namespace: inputsNS, Name: name}, &c)).To(Succeed())
			Expect(c.UID).To(Equal(uid), "%s was not touched", name)
			Expect(hubConfigMap(name)).To(HaveKeyWithValue("tenant", name[len("tenant-"):]))
		}
		Expect(hub.Get(set).Status.Inputs.Count).To(BeEquivalentTo(2))

		tree := runCLI("tree", "--set", inputsNS+"/tenants")
		Expect(tree.code).To(Equal(0))
		Expect(tree.stdout).To(And(ContainSubstring("Inputs: 2"), MatchRegexp(`WAVE\s+INPUT\s+CLUSTER\s+COMPONENT`),
			MatchRegexp(`1\s+a\s+-\s+tenant-a\s+True`), MatchRegexp(`1\s+c\s+-\s+tenant-c\s+True`)))
		Expect(tree.stdout).NotTo(ContainSubstring("pulled"))

		changed := hub.Get(set)
		changed.Spec.Inputs.List = entries(`{"id":"a"}`, `{"id":"d"}`)
		diff := diffSet("-f", writeSet(changed))
		Expect(diff.code).To(Equal(1), "something would change")
		Expect(diff.stdout).To(And(ContainSubstring("member tenant-d (wave 1, joins the selection): Component inputs/tenant-d"),
			ContainSubstring("member tenant-c leaves the selection: Component inputs/tenant-c is deleted"),
			ContainSubstring("Members: 1 to change, 1 unchanged, 1 to leave, 0 not previewed")))
		Expect(hubConfigMap("tenant-d")).To(BeNil(), "a preview writes nothing")
	})

	It("makes a member per cluster and entry, two clusters by three entries in two cluster waves", func() {
		for i, wave := range []string{"canary", "main"} {
			secret, err := clusters[i].KubeconfigSecret(inputsNS, clusterName(i), map[string]string{clusterLabel: "true", "matrix": "yes", "wave": wave})
			Expect(err).NotTo(HaveOccurred())
			Expect(hub.Client.Create(ctx, secret)).To(Succeed())
		}
		placement := &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"matrix": "yes"}}}
		set := inputSet("matrix", "", placement, `{"id":"x"}`, `{"id":"y"}`, `{"id":"z"}`)
		set.Spec.Rollout = v1alpha1.Rollout{WaveLabel: "wave", WaveOrder: []string{"canary", "main"}}
		set.Spec.Template.Spec.Namespace = "tenant-${input.id}" // each member's own, on each cluster
		Expect(hub.Client.Create(ctx, set)).To(Succeed())
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("True/Ready"))
		got := hub.Get(set)
		Expect(got.Status.Rollout).To(Equal(v1alpha1.RolloutStatus{Wave: 2, Waves: 2, Clusters: 6, Ready: 6}))
		Expect(got.Status.Clusters).To(ContainElements(HavePrefix("matrix-c1-x (wave 1): Ready"), HavePrefix("matrix-c2-z (wave 2): Ready")))
		for i := range 2 {
			for _, id := range []string{"x", "y", "z"} {
				name := fmt.Sprintf("matrix-%s-%s", clusterName(i), id)
				var cm corev1.ConfigMap
				Expect(clusters[i].Client.Get(ctx, client.ObjectKey{Namespace: "tenant-" + id, Name: name}, &cm)).To(Succeed(), name)
				Expect(cm.Data).To(And(HaveKeyWithValue("tenant", id), HaveKeyWithValue("cluster", clusterName(i))))
			}
		}
	})

	It("refuses a name template that gives an invalid name before it writes anything", func() {
		set := inputSet("invalid", "Team_${input.id}", nil, `{"id":"a"}`)
		Expect(hub.Client.Create(ctx, set)).To(Succeed())
		Eventually(hub.ReadyReason).WithArguments(set).WithTimeout(timeout).Should(Equal("False/Invalid"))
		Expect(meta(hub.Get(set), component.ConditionReady).Message).To(ContainSubstring(`gives "Team_a" for input a, not a valid name`))
		Expect(ownedBy(hub.Get(set))).To(BeEmpty())

		hub.Update(set, func(s *v1alpha1.ComponentSet) {
			s.Spec.Inputs.MaxMembers, s.Spec.Inputs.Name = ptr.To(int32(1)), ""
			s.Spec.Inputs.List = entries(`{"id":"a"}`, `{"id":"b"}`)
		})
		Eventually(func() string { return meta(hub.Get(set), component.ConditionReady).Message }).WithTimeout(timeout).Should(
			ContainSubstring("2 inputs make 2 members, more than spec.inputs.maxMembers (1)"))
		Expect(ownedBy(hub.Get(set))).To(BeEmpty())
	})
})

// inputSet is a set of the tenant source over the entries.
func inputSet(name, nameTemplate string, placement *v1alpha1.Placement, list ...string) *v1alpha1.ComponentSet {
	return &v1alpha1.ComponentSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: inputsNS, Name: name},
		Spec: v1alpha1.ComponentSetSpec{
			Template:  v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "tenant"}},
			Placement: placement,
			Inputs:    &v1alpha1.Inputs{InputSource: v1alpha1.InputSource{List: entries(list...)}, Name: nameTemplate},
		},
	}
}

func entries(docs ...string) []v1alpha1.InputEntry {
	out := make([]v1alpha1.InputEntry, 0, len(docs))
	for _, d := range docs {
		out = append(out, v1alpha1.InputEntry{JSON: apiextensionsv1.JSON{Raw: []byte(d)}})
	}
	return out
}

// hubConfigMap is the data of a member's ConfigMap on the hub, nil when
// there is none.
func hubConfigMap(name string) map[string]string {
	var cm corev1.ConfigMap
	if err := hub.Client.Get(ctx, client.ObjectKey{Namespace: inputsNS, Name: name}, &cm); err != nil {
		return nil
	}
	return cm.Data
}

// ownedBy are the names of the Components set controls.
func ownedBy(set *v1alpha1.ComponentSet) []string {
	var list v1alpha1.ComponentList
	Expect(hub.Client.List(ctx, &list, client.InNamespace(set.Namespace))).To(Succeed())
	var out []string
	for _, c := range list.Items {
		if metav1.IsControlledBy(&c, set) {
			out = append(out, c.Name)
		}
	}
	return out
}
