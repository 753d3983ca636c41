package template_test

import (
	"context"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/generator/template"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("Generator", func() {
	ctx := context.Background()
	values := manifests.Values{
		"replicas": 2,
		"image":    "nginx:1.27",
		"service":  true,
		"port":     9090,
		"settings": map[string]any{"level": "debug", "tags": []any{"a", "b"}},
		"rules":    []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}},
	}

	It("renders a directory file by file in lexical order, skipping partials and hidden files", func() {
		g, err := template.NewGeneratorFromDir("testdata/app")
		Expect(err).NotTo(HaveOccurred())
		info := manifests.ComponentInfo{OperatorName: "demo.wavekit.dev"}
		objects, err := g.Generate(manifests.WithComponentInfo(ctx, info), "shop", "Web", values)
		Expect(err).NotTo(HaveOccurred())
		Expect(contents(objects)).To(Equal(decode(`
apiVersion: v1
kind: ConfigMap
metadata:
  name: Web-config
  namespace: shop
  labels:
    app.kubernetes.io/name: Web
    app.kubernetes.io/instance: Web-shop
data:
  settings.yaml: "level: debug\ntags:\n- a\n- b\n"
  missing: ""
  operator: demo.wavekit.dev
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: Web, namespace: shop}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: app
        image: nginx:1.27
        ports: [{containerPort: 9090}]
---
apiVersion: v1
kind: Service
metadata: {name: Web, namespace: shop}
spec:
  ports: [{port: 9090}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: web, namespace: shop}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get]}
`)))
	})

	It("leaves .Component nil without component info and skips empty documents", func() {
		g, err := template.NewGeneratorFromDir("testdata/app")
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "shop", "web", manifests.Values{"image": "nginx"})
		Expect(err).NotTo(HaveOccurred())
		Expect(objects).To(HaveLen(3))
		Expect(contents(objects)[0]["data"]).To(Equal(map[string]any{"settings.yaml": "null\n", "missing": ""}))
		Expect(objects[1].GetObjectKind().GroupVersionKind().Kind).To(Equal("Deployment"))
		Expect(objects[2].GetObjectKind().GroupVersionKind().Kind).To(Equal("Role"))
	})

	It("renders the same objects on every call and never changes the parameters", func() {
		g, err := template.NewGeneratorFromDir("testdata/app")
		Expect(err).NotTo(HaveOccurred())
		first, err := g.Generate(ctx, "shop", "web", values)
		Expect(err).NotTo(HaveOccurred())
		second, err := g.Generate(ctx, "shop", "web", values)
		Expect(err).NotTo(HaveOccurred())
		Expect(contents(second)).To(Equal(contents(first)))
		Expect(values["replicas"]).To(Equal(2))
	})

	It("renders an fs.FS, sorting paths lexically", func() {
		fsys := fstest.MapFS{
			"b.yaml":   {Data: []byte(cm("b"))},
			"a/z.yaml": {Data: []byte(cm("a-z"))},
			"a.yml":    {Data: []byte(cm("a"))},
			"c.txt":    {Data: []byte(cm("ignored"))},
		}
		g, err := template.NewGenerator(fsys)
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "ns", "n", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(names(objects)).To(Equal([]string{"a", "a-z", "b"}))
	})

	It("flattens a List into its items", func() {
		fsys := fstest.MapFS{"list.yaml": {Data: []byte(`apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: one}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: two}}
`)}}
		g, err := template.NewGenerator(fsys)
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "ns", "n", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(names(objects)).To(Equal([]string{"one", "two"}))
	})

	It("renders nothing from an empty directory", func() {
		g, err := template.NewGenerator(fstest.MapFS{})
		Expect(err).NotTo(HaveOccurred())
		Expect(g.Generate(ctx, "ns", "n", nil)).To(BeEmpty())
	})

	It("adds functions and replaces shared ones with WithFuncs", func() {
		fsys := fstest.MapFS{"a.yaml": {Data: []byte(cm(`{{ shout "x" }}-{{ upper "y" }}`))}}
		g, err := template.NewGenerator(fsys, template.WithFuncs(map[string]any{
			"shout": func(s string) string { return s + "!" },
			"upper": func(s string) string { return "up-" + s },
		}))
		Expect(err).NotTo(HaveOccurred())
		objects, err := g.Generate(ctx, "ns", "n", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(names(objects)).To(Equal([]string{"x!-up-y"}))
	})
})

// cm is a ConfigMap manifest named name.
func cm(name string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"" + name + "\"\n"
}

// decode returns the objects of a YAML stream as plain maps, decoded the way
// the generator decodes its output.
func decode(text string) []map[string]any {
	objects, err := manifests.DecodeObjects("expected", []byte(text))
	Expect(err).NotTo(HaveOccurred())
	out := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		out = append(out, obj.Object)
	}
	return out
}

func names[T interface{ GetName() string }](objects []T) []string {
	out := make([]string, 0, len(objects))
	for _, obj := range objects {
		out = append(out, obj.GetName())
	}
	return out
}
