package source_test

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/generator/source"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// render detects the source in dir and renders it for default/demo.
func render(dir string, opts ...source.Option) (source.Kind, []client.Object) {
	g, kind, err := source.Detect(dir, opts...)
	Expect(err).NotTo(HaveOccurred())
	objects, err := g.Generate(context.Background(), "default", "demo", manifests.Values{"greeting": "hello"})
	Expect(err).NotTo(HaveOccurred())
	return kind, objects
}

func names(objects []client.Object) []string {
	var out []string
	for _, obj := range objects {
		out = append(out, obj.GetName())
	}
	return out
}

// writeFiles creates a temporary directory with the given files.
func writeFiles(files map[string]string) string {
	dir := GinkgoT().TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
		Expect(os.WriteFile(path, []byte(content), 0o644)).To(Succeed())
	}
	return dir
}

var _ = Describe("Detect", func() {
	It("renders a Helm chart as Helm does, .Release.Service included", func() {
		kind, objects := render("testdata/chart", source.WithOperatorName("example.io"))
		Expect(kind).To(Equal(source.Helm))
		Expect(names(objects)).To(Equal([]string{"demo"}))
		Expect(objects[0].GetLabels()).To(HaveKeyWithValue("service", "Helm"))
	})

	It("renders a kustomization, templates included", func() {
		kind, objects := render("testdata/kustomization")
		Expect(kind).To(Equal(source.Kustomize))
		Expect(names(objects)).To(Equal([]string{"k-demo"}))
	})

	It("renders a folder of Go templates with its partials", func() {
		kind, objects := render("testdata/templates")
		Expect(kind).To(Equal(source.Template))
		Expect(names(objects)).To(Equal([]string{"demo"}))
	})

	It("recognises every kustomization file name", func() {
		for _, name := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
			dir := writeFiles(map[string]string{
				name:         "resources: [cm.yaml]\n",
				"cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
				"Chart.txt":  "not a chart",
				"other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n",
			})
			kind, objects := render(dir)
			Expect(kind).To(Equal(source.Kustomize), name)
			Expect(names(objects)).To(Equal([]string{"cm"}), name)
		}
	})

	It("reaches bases outside the directory under a kustomize root", func() {
		_, objects := render("testdata/repo/overlay", source.WithKustomizeRoot("testdata/repo"))
		Expect(names(objects)).To(Equal([]string{"overlay-base"}))
	})

	It("refuses a directory outside the kustomize root", func() {
		_, _, err := source.Detect("testdata/repo/overlay", source.WithKustomizeRoot("testdata/chart"))
		Expect(err).To(MatchError("source testdata/repo/overlay: not inside the kustomize root testdata/chart"))
	})

	It("says when the directory does not exist", func() {
		_, _, err := source.Detect("testdata/missing")
		Expect(err).To(MatchError("source testdata/missing: no such directory"))
	})

	It("says when the source is a file", func() {
		_, _, err := source.Detect("testdata/chart/Chart.yaml")
		Expect(err).To(MatchError("source testdata/chart/Chart.yaml: not a directory"))
	})

	It("says when there is nothing to render", func() {
		for _, files := range []map[string]string{
			{},
			{"README.md": "# nothing"},
			{"_helpers.tpl": "{{ define \"x\" }}{{ end }}", "_partial.yaml": "a: b"},
			{".hidden/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"},
		} {
			dir := writeFiles(files)
			_, _, err := source.Detect(dir)
			Expect(err).To(MatchError("source "+dir+": nothing to render: no Chart.yaml, no kustomization file and no *.yaml or *.yml files"), "%v", files)
		}
	})

	DescribeTable("refuses a folder that looks like a Helm chart but misnames a file, instead of rendering Go templates",
		func(files map[string]string, message string) {
			dir := writeFiles(files)
			_, _, err := source.Detect(dir)
			Expect(err).To(MatchError("source " + dir + ": " + message))
		},
		Entry("Chart.yml", map[string]string{"Chart.yml": "name: web\n", "templates/cm.yaml": "kind: ConfigMap\n"},
			"found Chart.yml: Helm charts need Chart.yaml; rename it"),
		Entry("chart.yaml", map[string]string{"chart.yaml": "name: web\n", "values.yaml": "a: 1\n"},
			"found chart.yaml: Helm charts need Chart.yaml; rename it"),
		Entry("values.yml without Chart.yaml", map[string]string{"values.yml": "a: 1\n", "templates/cm.yaml": "kind: ConfigMap\n"},
			"found values.yml but no Chart.yaml: a Helm chart needs Chart.yaml beside its values (a folder of Go templates has no values file)"),
		Entry("values.yml beside Chart.yaml", map[string]string{"Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n", "values.yml": "a: 1\n"},
			"found values.yml: Helm reads its default values only from values.yaml; rename it"),
	)

	It("takes a kustomization that holds a values file as a kustomization", func() {
		dir := writeFiles(map[string]string{
			"kustomization.yaml": "resources: [cm.yaml]\n",
			"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
			"values.yml":         "a: 1\n",
		})
		kind, _ := render(dir)
		Expect(kind).To(Equal(source.Kustomize))
	})

	It("passes the error of a chart that does not load", func() {
		dir := writeFiles(map[string]string{"Chart.yaml": "name: broken\n"})
		_, _, err := source.Detect(dir)
		Expect(err).To(MatchError(ContainSubstring("helm generator")))
	})

	It("needs the operator name for a Helm chart", func() {
		g, _, err := source.Detect("testdata/chart")
		Expect(err).NotTo(HaveOccurred())
		_, err = g.Generate(context.Background(), "default", "demo", nil)
		Expect(err).To(MatchError(ContainSubstring("no operator name")))
	})
})
