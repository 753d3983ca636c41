package definitions_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chart"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/localrepo"
)

// stackCharts are the chart stack, which names its dependency cache in
// its Chart.yaml, and cache: the database chart with no schema of its
// own (Helm gives a dependency the values' globals, which the database's
// additionalProperties: false would refuse, under helm template as here).
func stackCharts() []localrepo.Chart {
	cache := databaseChart("1.0.0", true)
	cache.Name, cache.Schema = "cache", nil
	return []localrepo.Chart{cache, {Name: "stack", Version: "1.0.0",
		Dependencies: []*chart.Dependency{{Name: "cache", Version: "^1.0.0", Repository: repo.URL}},
		Templates:    map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-stack\ndata:\n  tier: {{ .Values.cache.tier | quote }}\n"},
	}}
}

// A definition's chart whose dependency is not in its charts/: its
// instances render with the dependency the operator fetches, as a
// Component's chart does.
var _ = Describe("a definition of a chart that depends on another chart", func() {
	It("serves its kind, and an instance is Ready with the dependency's objects and says which version it used", func() {
		def := &v1alpha1.ComponentDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "stacks." + group},
			Spec: v1alpha1.ComponentDefinitionSpec{
				Group:  group,
				Names:  v1alpha1.DefinitionNames{Kind: "Stack", Plural: "stacks"},
				Source: v1alpha1.DefinitionSource{Chart: &v1alpha1.ChartSource{Repository: repo.URL, Name: "stack", Version: "1.0.0"}},
			},
		}
		Expect(env.Client.Create(ctx, def)).To(Succeed())
		DeferCleanup(func() { _ = env.Client.Delete(ctx, def) })
		Eventually(definitionStatus(def.Name)).WithTimeout(90 * time.Second).Should(HavePrefix("True/Served"))

		ns := newNamespace("stack")
		stack := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"cache": map[string]any{"tier": "large"}}}}
		stack.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: "Stack"})
		stack.SetNamespace(ns)
		stack.SetName("shop")
		Expect(env.Client.Create(ctx, stack)).To(Succeed())
		Eventually(func() string { u, _ := read(stack); return condition(u, "Ready") }).WithTimeout(90 * time.Second).Should(HavePrefix("True/Ready"))
		Expect(readyOf(stack)()).To(Equal("True/Ready revision 1"))

		config := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop-config"}, config)).To(Succeed())
		Expect(config.Data).To(HaveKeyWithValue("tier", "large"), "the dependency's ConfigMap, with the values the instance gave it")
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, &appsv1.Deployment{})).To(Succeed(), "the dependency's Deployment")
		u, err := read(stack)
		Expect(err).NotTo(HaveOccurred())
		deps, _, _ := unstructured.NestedSlice(u.Object, "status", "source", "dependencies")
		Expect(deps).To(HaveLen(1))
		Expect(deps[0]).To(And(HaveKeyWithValue("name", "cache"), HaveKeyWithValue("version", "1.0.0"), HaveKeyWithValue("repository", repo.URL)))
	})
})
