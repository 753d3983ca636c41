package kustomize_test

import (
	"context"
	"errors"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/generator/kustomize"
	"github.com/wavekit-dev/wavekit/pkg/generator/template"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("Generator", func() {
	ctx := context.Background()

	It("renders templates before the build and copies other files as they are", func() {
		g, err := kustomize.NewGeneratorFromDir("testdata", "templated")
		Expect(err).NotTo(HaveOccurred())
		values := manifests.Values{"replicas": 3, "images": map[string]any{"nginx": "1.27"}}
		objects, err := g.Generate(ctx, "shop", "blue", values)
		Expect(err).NotTo(HaveOccurred())
		Expect(contents(objects)).To(Equal(decode([]byte(`
apiVersion: v1
kind: ConfigMap
metadata: {name: blue-settings-55f85fmktb, namespace: shop}
data:
  GREETING: "{{ not rendered }}"
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: blue-web, namespace: shop}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        envFrom:
        - configMapRef: {name: blue-settings-55f85fmktb}
`))))
	})

	It("generates a kustomization for a directory without one", func() {
		g, err := kustomize.NewGeneratorFromDir("testdata", "plain")
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "ns", "n", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(contents(objects)).To(Equal(decode([]byte(`
apiVersion: v1
kind: Namespace
metadata: {name: plain}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
data: {key: value}
`))))
	})

	It("builds the root of an fs.FS", func() {
		g, err := kustomize.NewGenerator(fstest.MapFS{
			"kustomization.yaml": file("resources: [cm.yaml]\nnameSuffix: -{{ .Values.suffix }}\n"),
			"cm.yaml":            file("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"),
		}, ".")
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "ns", "n", manifests.Values{"suffix": "x"})
		Expect(err).NotTo(HaveOccurred())
		Expect(contents(objects)).To(Equal(decode([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-x}\n"))))
	})

	It("checks the values against the values.schema.json of the kustomization's directory, as Helm", func() {
		g, err := kustomize.NewGenerator(fstest.MapFS{
			"overlay/kustomization.yaml": file("resources: [cm.yaml]\nnameSuffix: -{{ .Values.suffix }}\n"),
			"overlay/cm.yaml":            file("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"),
			"overlay/values.schema.json": file(`{"type": "object", "additionalProperties": false, "properties": {"suffix": {"type": "string"}}}`),
			"values.schema.json":         file(`{"type": "object", "required": ["elsewhere"]}`),
		}, "overlay")
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "ns", "n", manifests.Values{"sufix": "x"})
		Expect(err).To(MatchError("values don't meet the specifications of the schema in overlay/values.schema.json:\n" +
			"- at '': additional properties 'sufix' not allowed"))
		Expect(objects).To(BeEmpty())
		objects, err = g.Generate(ctx, "ns", "n", manifests.Values{"suffix": "x"})
		Expect(err).NotTo(HaveOccurred())
		Expect(contents(objects)).To(Equal(decode([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-x}\n"))))
	})

	It("copies every file as it is WithoutTemplating", func() {
		rule := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rules}\ndata:\n  summary: \"{{ $labels.instance }} is down\"\n"
		g, err := kustomize.NewGenerator(fstest.MapFS{"rules.yaml": file(rule)}, ".", kustomize.WithoutTemplating())
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "ns", "n", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(contents(objects)).To(Equal(decode([]byte(rule))))
	})

	It("renders the files that WithTemplatePatterns selects", func() {
		g, err := kustomize.NewGenerator(fstest.MapFS{
			"kustomization.yaml": file("configMapGenerator:\n- {name: c, envs: [c.env], options: {disableNameSuffixHash: true}}\n"),
			"c.env":              file("NAME={{ .Name }}\n"),
		}, ".", kustomize.WithTemplatePatterns("*.env"))
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "ns", "n", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(contents(objects)).To(Equal(decode([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {NAME: \"n\"}\n"))))
	})

	It("passes template options on", func() {
		g, err := kustomize.NewGenerator(fstest.MapFS{"a.yaml": file("kind: {{ .Values.kind }}\n")}, ".",
			kustomize.WithTemplateOptions(template.WithMissingKeyError()))
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "ns", "n", nil)
		Expect(objects).To(BeNil())
		Expect(err).To(MatchError(`rendering a.yaml: template: a.yaml:1:16: executing "a.yaml" at <.Values.kind>: map has no entry for key "kind"`))
	})

	Describe("errors", func() {
		It("names the template file, line and expression", func() {
			g, err := kustomize.NewGenerator(fstest.MapFS{
				"kustomization.yaml": file("resources: [cm.yaml]\nnamePrefix: {{ required \"prefix is required\" .Values.prefix }}\n"),
				"cm.yaml":            file("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"),
			}, ".")
			Expect(err).NotTo(HaveOccurred())
			objects, err := g.Generate(ctx, "ns", "n", nil)
			Expect(objects).To(BeNil())
			Expect(err).To(MatchError(`rendering kustomization.yaml: template: kustomization.yaml:2:15: executing "kustomization.yaml" at <required "prefix is required" .Values.prefix>: error calling required: prefix is required`))
		})

		It("names the file and line of a template parse error at construction", func() {
			_, err := kustomize.NewGenerator(fstest.MapFS{"overlay/patch.yaml": file("a: 1\nb: {{ .Values.x\n")}, "overlay")
			Expect(err).To(MatchError("parsing template overlay/patch.yaml: template: overlay/patch.yaml:3: unclosed action started at overlay/patch.yaml:2"))
		})

		It("wraps a kustomize error with the directory and returns no objects", func() {
			g, err := kustomize.NewGenerator(fstest.MapFS{
				"app/kustomization.yaml": file("resources: [missing.yaml]\n"),
			}, "app")
			Expect(err).NotTo(HaveOccurred())
			objects, err := g.Generate(ctx, "ns", "n", nil)
			Expect(objects).To(BeNil())
			Expect(err).To(MatchError(HavePrefix("kustomize build app: ")))
			Expect(err).To(MatchError(ContainSubstring("missing.yaml")))
		})

		It("names a base outside the source on disk", func() {
			g, err := kustomize.NewGeneratorFromDir("testdata/overlays/dev", ".")
			Expect(err).NotTo(HaveOccurred())
			_, err = g.Generate(ctx, "ns", "n", nil)
			var outside *kustomize.OutsideSourceError
			Expect(errors.As(err, &outside)).To(BeTrue(), "%v", err)
			Expect(outside.Path).To(Equal("testdata/base"))
			Expect(outside.Source).To(Equal("testdata/overlays/dev"))
			Expect(err).To(MatchError(HavePrefix("kustomize build .: testdata/base is outside the source testdata/overlays/dev: ")))
		})

		It("fails on a directory that does not exist", func() {
			_, err := kustomize.NewGeneratorFromDir("testdata", "overlays/nope")
			Expect(err).To(MatchError("kustomize source testdata: kustomization directory: stat overlays/nope: no such file or directory"))
		})

		It("fails on a bad template pattern", func() {
			_, err := kustomize.NewGenerator(fstest.MapFS{"a.yaml": file("")}, ".", kustomize.WithTemplatePatterns("["))
			Expect(err).To(MatchError(`reading kustomize source: template pattern "[": syntax error in pattern`))
		})
	})
})

func file(text string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(text)}
}
