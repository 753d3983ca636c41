package helm_test

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"os"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ignoredChart embeds a chart the way operators do; "all:" keeps the files
// that start with "." or "_" (.helmignore, _helpers.tpl).
//
//go:embed all:testdata/charts/ignored
var ignoredChart embed.FS

var _ = Describe(".Release", func() {
	releaseOf := func(ctx context.Context, g *helm.Generator) string {
		return data(byName(render(ctx, g, nil), "ConfigMap", "rel-basic-config"))["release"]
	}

	It("is an install of revision 1 by Helm without component info", func() {
		g, err := helm.Load(chartPath("basic"), helm.WithOperatorName("ops.example.com"))
		Expect(err).NotTo(HaveOccurred())
		Expect(releaseOf(context.Background(), g)).To(Equal("ns/rel service=Helm install=true upgrade=false revision=1"))
	})

	It("follows the component info: install or upgrade, and revision", func() {
		g, err := helm.Load(chartPath("basic"), helm.WithOperatorName("ignored.example.com"))
		Expect(err).NotTo(HaveOccurred())
		Expect(releaseOf(upgradeCtx(4), g)).To(Equal("ns/rel service=Helm install=false upgrade=true revision=4"))
		Expect(releaseOf(installCtx(), g)).To(Equal("ns/rel service=Helm install=true upgrade=false revision=1"))
	})

	It("has the service that WithReleaseService names", func() {
		g, err := helm.Load(chartPath("basic"), helm.WithReleaseService("wavekit"))
		Expect(err).NotTo(HaveOccurred())
		Expect(releaseOf(installCtx(), g)).To(Equal("ns/rel service=wavekit install=true upgrade=false revision=1"))
	})

	It("needs an operator name for the annotation prefix", func() {
		g, err := helm.Load(chartPath("basic"))
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(context.Background(), "ns", "rel", nil)
		Expect(objects).To(BeNil())
		Expect(err).To(MatchError("helm chart basic: no operator name: the context carries no manifests.ComponentInfo " +
			"with an OperatorName and WithOperatorName is not set"))
	})
})

var _ = Describe("values", func() {
	It("reads parameters as Helm reads a values file", func() {
		objects := render(installCtx(), load(chartPath("basic")), manifests.Values{"big": 1000000, "greeting": "{{ .Release.Namespace }}"})
		Expect(data(byName(objects, "ConfigMap", "rel-basic-config"))).To(SatisfyAll(
			HaveKeyWithValue("big", "1e+06"),
			HaveKeyWithValue("greeting", "ns"),
		))
	})

	It("lets a scalar replace a map, a map replace a scalar, and null delete a default", func() {
		objects := render(installCtx(), load(chartPath("merge")), manifests.Values{
			"resources": "none", "mode": manifests.Values{"complex": true}, "nested": manifests.Values{"drop": nil},
		})
		Expect(data(objects[0])["values.yaml"]).To(Equal(`count: 3
mode:
  complex: true
nested:
  deeper:
    a: 1
    b: 2
  keep: kept
resources: none
tolerations:
- key: a
  operator: Exists`))
	})

	It("changes neither the caller's values nor the chart between renders", func() {
		g := load(chartPath("umbrella"))
		values := manifests.Values{"second": manifests.Values{"enabled": false}, "fromChild": manifests.Values{"extra": "x"}}
		first := render(installCtx(), g, nil)
		render(installCtx(), g, values)
		Expect(values).To(Equal(manifests.Values{"second": manifests.Values{"enabled": false}, "fromChild": manifests.Values{"extra": "x"}}))
		Expect(asYAML(asMaps(render(installCtx(), g, nil)))).To(Equal(asYAML(asMaps(first))))
	})

	It("renders the same objects in the same order every time, also concurrently", func() {
		g := load(chartPath("umbrella"))
		inputs := []manifests.Values{nil, {"tags": manifests.Values{"extras": false}}, {"third": manifests.Values{"enabled": true}}}
		expected := make([]string, len(inputs))
		for i, v := range inputs {
			expected[i] = asYAML(asMaps(render(installCtx(), g, v)))
		}
		var wg sync.WaitGroup
		results := make([]string, 3*len(inputs))
		for i := range results {
			wg.Go(func() {
				defer GinkgoRecover()
				results[i] = asYAML(asMaps(render(installCtx(), g, inputs[i%len(inputs)])))
			})
		}
		wg.Wait()
		for i, r := range results {
			Expect(r).To(Equal(expected[i%len(inputs)]))
		}
	})
})

var _ = Describe("loading", func() {
	It("loads a chart from an fs.FS as from its directory, packaged subcharts included", func() {
		fromFS, err := helm.LoadFS(os.DirFS(charts), "umbrella")
		Expect(err).NotTo(HaveOccurred())
		fromDir := render(installCtx(), load(chartPath("umbrella")), nil)
		Expect(names(fromDir)).To(ContainElement("Secret/rel-packaged"))
		Expect(asYAML(asMaps(render(installCtx(), fromFS, nil)))).To(Equal(asYAML(asMaps(fromDir))))
	})

	It("honours .helmignore in an embedded chart", func() {
		g, err := helm.LoadFS(ignoredChart, "testdata/charts/ignored")
		Expect(err).NotTo(HaveOccurred())
		objects := render(installCtx(), g, nil)
		Expect(names(objects)).To(Equal([]string{"ConfigMap/rel-files"}))
		Expect(data(objects[0])).To(Equal(map[string]string{"files": ".helmignore,kept/data.txt", "kept": "kept"}))
	})

	It("loads from the root of an fs.FS", func() {
		sub, err := fs.Sub(ignoredChart, "testdata/charts/ignored")
		Expect(err).NotTo(HaveOccurred())
		ch, err := helm.LoadChartFS(sub, ".")
		Expect(err).NotTo(HaveOccurred())
		Expect(ch.Name()).To(Equal("ignored"))
		Expect(ch.Templates).To(HaveLen(1))
	})

	It("loads a packaged chart", func() {
		objects := render(installCtx(), load(chartPath("umbrella/charts/packaged-0.1.0.tgz")), manifests.Values{"global": manifests.Values{"env": "test"}})
		Expect(names(objects)).To(Equal([]string{"Secret/rel-packaged"}))
		Expect(objects[0].(*unstructured.Unstructured).Object["stringData"]).To(Equal(map[string]any{"size": "small", "env": "test"}))
	})

	It("refuses what helm template refuses", func() {
		_, err := helm.New(nil)
		Expect(err).To(MatchError("helm generator: chart has no metadata (Chart.yaml)"))

		_, err = helm.Load(chartPath("umbrella/charts/common"))
		Expect(err).To(MatchError("helm generator: chart common: library charts are not installable"))

		dir := writeChart("needy", map[string]string{})
		Expect(os.WriteFile(dir+"/Chart.yaml", []byte("apiVersion: v2\nname: needy\nversion: 0.1.0\n"+
			"dependencies:\n  - name: absent\n    version: 1.0.0\n"), 0o600)).To(Succeed())
		_, err = helm.Load(dir)
		Expect(err).To(MatchError("helm generator: chart needy: dependencies listed in Chart.yaml but missing in charts/: absent"))

		_, err = helm.LoadFS(os.DirFS(charts), "does-not-exist")
		Expect(err).To(MatchError(ContainSubstring("loading chart does-not-exist")))

		_, err = helm.Load(chartPath("basic"), helm.WithKubeVersion("not-a-version"))
		Expect(err).To(MatchError(ContainSubstring(`kube version "not-a-version"`)))
	})
})

var _ = Describe("errors", func() {
	generate := func(chart string, values manifests.Values) ([]client.Object, error) {
		return load(chartPath(chart)).Generate(installCtx(), "ns", "rel", values)
	}

	It("names the template file, line and failing expression, wrapped", func() {
		objects, err := generate("failing", manifests.Values{"mode": "nil"})
		Expect(objects).To(BeNil())
		Expect(err).To(MatchError(`helm chart failing: template: failing/templates/configmap.yaml:11:18: ` +
			`executing "failing/templates/configmap.yaml" at <.Values.database.settings.port>: nil pointer evaluating interface {}.port`))
		Expect(errors.Unwrap(err)).NotTo(BeNil())
	})

	It("says which value breaks the schema", func() {
		objects, err := generate("schema", manifests.Values{"replicas": "three"})
		Expect(objects).To(BeNil())
		Expect(err).To(MatchError(ContainSubstring("values don't meet the specifications of the schema(s) in the following chart(s):\nschema:\n")))
		Expect(err).To(MatchError(ContainSubstring("- at '/replicas': got string, want integer")))
	})

	It("lists schema violations in a fixed order", func() {
		for range 5 {
			_, err := generate("schema", manifests.Values{"replicas": 0, "image": manifests.Values{"tag": "latest"}})
			Expect(err).To(MatchError("helm chart schema: values don't meet the specifications of the schema(s) in the following chart(s):\n" +
				"schema:\n" +
				`- at '/image/tag': 'latest' does not match pattern '^[0-9]+\\.[0-9]+$'` + "\n" +
				"- at '/replicas': minimum: got 0, want 1\n"))
		}
	})

	It("checks the chart's kubeVersion against the cluster's", func() {
		dir := writeChart("modern", map[string]string{})
		Expect(os.WriteFile(dir+"/Chart.yaml", []byte("apiVersion: v2\nname: modern\nversion: 0.1.0\nkubeVersion: '>=1.30.0-0'\n"), 0o600)).To(Succeed())
		objects, err := load(dir).Generate(installCtx(), "ns", "rel", nil)
		Expect(objects).To(BeNil())
		Expect(err).To(MatchError("helm chart modern: chart requires kubeVersion >=1.30.0-0, which is incompatible with Kubernetes v1.20.0"))
		Expect(render(installCtx(), load(dir, helm.WithKubeVersion("1.31.0")), nil)).To(BeEmpty())
	})
})
