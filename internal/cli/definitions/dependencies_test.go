package definitions_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

var _ = Describe("a chart with dependencies", func() {
	var (
		// chartDir is the chart's directory, flags those of its runs: a
		// chart cache and a repositories file of their own.
		chartDir string
		flags    []string
	)

	BeforeEach(func() {
		charts, err := localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(charts.Close)
		greeter := func(name string) localrepo.Chart {
			return localrepo.Chart{Name: name, Version: "1.0.0", Values: map[string]any{"greeting": "hello from " + name},
				Templates: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}\n" +
					"data:\n  greeting: {{ .Values.greeting | quote }}\n"}}
		}
		Expect(charts.Add(greeter("web"), greeter("extra"))).To(Succeed())
		root := GinkgoT().TempDir()
		Expect(os.Mkdir(filepath.Join(root, ".git"), 0o755)).To(Succeed())
		for name, content := range map[string]string{
			"parent/Chart.yaml": "apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n" +
				"  - name: web\n    version: ^1\n    repository: " + charts.URL + "\n" +
				"  - name: extra\n    version: ^1\n    repository: " + charts.URL + "\n    condition: extra.enabled\n" +
				"  - name: common\n    version: 0.1.0\n    repository: file://../common\n",
			"parent/values.yaml":        "extra:\n  enabled: false\n",
			"parent/values.schema.json": `{"type": "object", "properties": {"extra": {"type": "object", "properties": {"enabled": {"type": "boolean", "description": "Install the extra chart."}}}}}`,
			"parent/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-parent\n  labels:\n    {{- include \"common.labels\" . | nindent 4 }}\n",
			"common/Chart.yaml":         "apiVersion: v2\nname: common\nversion: 0.1.0\ntype: library\n",
			"common/templates/_lbl.tpl": "{{- define \"common.labels\" -}}\napp.kubernetes.io/part-of: {{ .Chart.Name }}\n{{- end -}}\n",
		} {
			path := filepath.Join(root, filepath.FromSlash(name))
			Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
			Expect(os.WriteFile(path, []byte(content), 0o644)).To(Succeed())
		}
		chartDir = filepath.Join(root, "parent")
		flags = []string{"--chart-cache", filepath.Join(root, "cache"), "--repository-config", filepath.Join(root, "none.yaml")}
	})

	It("makes a definition of its values.schema.json, and renders an instance with its dependencies", func() {
		r := clitest.WavekitAlone("definition", "create", "Site", chartDir, "--group", "platform.example.com")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("description: Install the extra chart."))
		definition, _, _ := strings.Cut(r.Stdout, "\n---\n")
		files := GinkgoT().TempDir()
		defFile, instFile := filepath.Join(files, "sites.yaml"), filepath.Join(files, "shop.yaml")
		Expect(os.WriteFile(defFile, []byte(definition), 0o644)).To(Succeed())
		Expect(os.WriteFile(instFile, []byte("apiVersion: platform.example.com/v1alpha1\nkind: Site\nmetadata:\n  name: shop\n  namespace: web\n"+
			"spec:\n  extra:\n    enabled: true\n"), 0o644)).To(Succeed())

		r = clitest.WavekitAlone(append([]string{"definition", "render", defFile, instFile, "--path", chartDir}, flags...)...)
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(And(ContainSubstring("name: shop-parent"), ContainSubstring("app.kubernetes.io/part-of: parent"),
			ContainSubstring("name: shop-web"), ContainSubstring("name: shop-extra"), ContainSubstring("greeting: hello from extra")))
		Expect(r.Stderr).To(ContainSubstring("dependency: extra 1.0.0 from "))
	})
})
