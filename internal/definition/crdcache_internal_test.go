package definition

import (
	"context"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("the CRDs the operator caches", func() {
	It("holds them without their schemas, reads a CRD whole once a generation, and puts back a schema changed by hand", func(ctx SpecContext) {
		const operator = "cache.wavekit.dev"
		scheme := runtime.NewScheme()
		Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
		Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
		def := &v1alpha1.ComponentDefinition{ObjectMeta: metav1.ObjectMeta{Name: "widgets.cache.example.com"}}
		label := manifests.Key(operator, crdgen.LabelDefinition)
		want := widgetCRD(def.Name, label)
		api, err := client.New(env.Config, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		Expect(api.Create(ctx, want.DeepCopy())).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(api.Delete(ctx, want.DeepCopy())).To(Succeed()) })

		cached, err := cache.New(env.Config, CacheFor(operator, cache.Options{Scheme: scheme}))
		Expect(err).NotTo(HaveOccurred())
		cacheCtx, stop := context.WithCancel(ctx)
		DeferCleanup(stop)
		go func() { _ = cached.Start(cacheCtx) }()
		Expect(cached.WaitForCacheSync(ctx)).To(BeTrue())
		reads := &countedReads{Reader: api}
		writes, err := client.New(env.Config, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: cached}})
		Expect(err).NotTo(HaveOccurred())
		p := &pass{r: &reconciler{client: writes, api: reads, label: label, checked: newCheckedCRDs()}, def: def}

		live := &apiextensionsv1.CustomResourceDefinition{}
		Eventually(func(g Gomega) {
			g.Expect(cached.Get(ctx, client.ObjectKeyFromObject(want), live)).To(Succeed())
			g.Expect(established(live)).To(BeTrue())
		}).Should(Succeed())
		Expect(live.Spec.Versions[0].Schema).To(BeNil(), "the cache holds the CRD without its schema")

		ensure := func() {
			GinkgoHelper()
			ok, err := p.ensureCRD(ctx, want)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue())
		}
		ensure()
		ensure()
		Expect(reads.n.Load()).To(BeEquivalentTo(1), "one read of the whole CRD for its generation")
		Expect(api.Get(ctx, client.ObjectKeyFromObject(want), live)).To(Succeed())
		Expect(live.Generation).To(BeEquivalentTo(1), "nothing written")

		edited := live.DeepCopy()
		delete(edited.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties, "spec")
		Expect(api.Update(ctx, edited)).To(Succeed())
		Eventually(func() (int64, error) {
			err := cached.Get(ctx, client.ObjectKeyFromObject(want), live)
			return live.Generation, err
		}).Should(BeEquivalentTo(2))
		ok, err := p.ensureCRD(ctx, want)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse(), "a CRD just written back waits for the next pass")
		Expect(reads.n.Load()).To(BeEquivalentTo(2))
		Expect(api.Get(ctx, client.ObjectKeyFromObject(want), live)).To(Succeed())
		Expect(live.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties).To(HaveKey("spec"), "the schema is the definition's again")
	})
})

// widgetCRD is a CRD of one version whose schema has a spec, as the
// operator writes them for definition, labelled label.
func widgetCRD(definition, label string) *apiextensionsv1.CustomResourceDefinition {
	object := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}}},
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: definition, Labels: map[string]string{label: definition}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "cache.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &object}}},
		},
	}
}

// countedReads counts the Gets of a reader.
type countedReads struct {
	client.Reader
	n atomic.Int32
}

func (r *countedReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.n.Add(1)
	return r.Reader.Get(ctx, key, obj, opts...)
}
