package helm_test

import (
	"context"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// countingDiscovery counts the API discovery calls that .Capabilities need.
type countingDiscovery struct {
	discovery.DiscoveryInterface
	calls atomic.Int32
}

func (d *countingDiscovery) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	d.calls.Add(1)
	return d.DiscoveryInterface.ServerGroupsAndResources()
}

var _ = Describe("against an API server", Ordered, func() {
	var (
		env    *testcluster.Env
		direct discovery.DiscoveryInterface
		ctx    = context.Background()
	)

	BeforeAll(func() {
		var err error
		env, err = testcluster.Start(testcluster.Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
		direct, err = discovery.NewDiscoveryClientForConfig(env.Config)
		Expect(err).NotTo(HaveOccurred())

		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lookup-ns"}})).To(Succeed())
		for name, color := range map[string]string{"settings": "blue", "other": "red"} {
			Expect(env.Client.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "lookup-ns"},
				Data:       map[string]string{"color": color},
			})).To(Succeed())
		}
		widget := &unstructured.Unstructured{}
		widget.SetAPIVersion("test.wavekit.dev/v1")
		widget.SetKind("Widget")
		widget.SetNamespace("default")
		widget.SetName("w1")
		Expect(env.Client.Create(ctx, widget)).To(Succeed())
	})

	lookupData := func(ctx context.Context, g *helm.Generator) map[string]string {
		objects, err := g.Generate(ctx, "lookup-ns", "rel", nil)
		Expect(err).NotTo(HaveOccurred())
		return data(objects[0])
	}
	expectedLookup := map[string]string{
		"existing": "blue", "missing": "true", "namespace": "lookup-ns",
		"listKind": "ConfigMapList", "configMaps": "other,settings", "widgets": "1",
	}

	It("serves lookup through the context's client", func() {
		readCtx := manifests.WithClient(installCtx(), env.Client)
		Expect(lookupData(readCtx, load(chartPath("lookup")))).To(Equal(expectedLookup))
	})

	It("serves lookup with Helm's dynamic client given a rest config", func() {
		g := load(chartPath("lookup"), helm.WithRESTConfig(env.Config))
		Expect(lookupData(installCtx(), g)).To(Equal(expectedLookup))
	})

	It("fails a lookup of a kind the cluster does not serve, naming it", func() {
		dir := writeChart("unknown", map[string]string{"templates/cm.yaml": `
apiVersion: v1
kind: ConfigMap
metadata:
  name: x
data:
  found: {{ lookup "nope.wavekit.dev/v1" "Nope" "" "" | len | quote }}
`})
		objects, err := load(dir).Generate(manifests.WithClient(installCtx(), env.Client), "ns", "rel", nil)
		Expect(objects).To(BeNil())
		Expect(err).To(MatchError(SatisfyAll(
			ContainSubstring("unknown/templates/cm.yaml:7:12"),
			ContainSubstring("error calling lookup"),
			ContainSubstring(`no matches for kind "Nope" in version "nope.wavekit.dev/v1"`),
		)))
	})

	capabilities := func(ctx context.Context, g *helm.Generator) map[string]string {
		return data(render(ctx, g, nil)[0])
	}

	It("reads .Capabilities from discovery once and caches them", func() {
		version, err := direct.ServerVersion()
		Expect(err).NotTo(HaveOccurred())
		counting := &countingDiscovery{DiscoveryInterface: direct}
		g := load(chartPath("capabilities"), helm.WithAPIVersions("extra.wavekit.dev/v1"))
		discoveryCtx := manifests.WithDiscovery(installCtx(), counting)

		Expect(capabilities(discoveryCtx, g)).To(Equal(map[string]string{
			"version": version.GitVersion, "major": version.Major, "minor": version.Minor,
			"widgets": "true", "sprockets": "false", "apps": "true", "extra": "true",
		}))
		capabilities(discoveryCtx, g)
		Expect(counting.calls.Load()).To(Equal(int32(1)))
	})

	It("discovers again when the CRDs change, seen through the context's client", func() {
		counting := &countingDiscovery{DiscoveryInterface: direct}
		g := load(chartPath("capabilities"))
		watchCtx := manifests.WithClient(manifests.WithDiscovery(installCtx(), counting), env.Client)
		Expect(capabilities(watchCtx, g)).To(HaveKeyWithValue("sprockets", "false"))
		Expect(capabilities(watchCtx, g)).To(HaveKeyWithValue("sprockets", "false"))
		Expect(counting.calls.Load()).To(Equal(int32(1)))

		Expect(env.Client.Create(ctx, sprocketCRD())).To(Succeed())
		Eventually(func() map[string]string { return capabilities(watchCtx, g) }).
			WithTimeout(30 * time.Second).Should(HaveKeyWithValue("sprockets", "true"))
		Expect(counting.calls.Load()).To(BeNumerically(">", 1))

		// Once the CRD is Established its resourceVersion stays put, and so
		// does the cache.
		Eventually(func() bool { return established(ctx, env.Client, "sprockets.caps.wavekit.dev") }).
			WithTimeout(30 * time.Second).Should(BeTrue())
		capabilities(watchCtx, g)
		calls := counting.calls.Load()
		capabilities(watchCtx, g)
		capabilities(watchCtx, g)
		Expect(counting.calls.Load()).To(Equal(calls))
	})

	It("keeps cached .Capabilities without a client until Invalidate", func() {
		g := load(chartPath("capabilities"))
		discoveryCtx := manifests.WithDiscovery(installCtx(), direct)
		Expect(capabilities(discoveryCtx, g)).To(HaveKeyWithValue("sprockets", "true"))

		Expect(env.Client.Delete(ctx, sprocketCRD())).To(Succeed())
		Eventually(func() error {
			_, err := direct.ServerResourcesForGroupVersion("caps.wavekit.dev/v1")
			return err
		}).WithTimeout(30 * time.Second).Should(HaveOccurred())
		Expect(capabilities(discoveryCtx, g)).To(HaveKeyWithValue("sprockets", "true"))

		g.Invalidate()
		Expect(capabilities(discoveryCtx, g)).To(HaveKeyWithValue("sprockets", "false"))
	})
})

// established reports whether the named CRD has condition Established.
func established(ctx context.Context, c client.Client, name string) bool {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := c.Get(ctx, client.ObjectKey{Name: name}, &crd); err != nil {
		return false
	}
	for _, cond := range crd.Status.Conditions {
		if cond.Type == apiextensionsv1.Established {
			return cond.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

// sprocketCRD is a CRD that the capabilities tests create and delete.
func sprocketCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "sprockets.caps.wavekit.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "caps.wavekit.dev",
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind: "Sprocket", ListKind: "SprocketList", Plural: "sprockets", Singular: "sprocket",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve,
				}},
			}},
		},
	}
}
