package patch_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/generator/patch"
)

// rendered is what a chart might render: two Deployments of one app, a
// ConfigMap and a Service, in namespace prod.
const rendered = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
  labels: {app.kubernetes.io/part-of: shop, tier: front}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - {name: web, image: "web:1", resources: {limits: {cpu: 100m}}}
      - {name: proxy, image: "envoy:1"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: prod}
data: {mode: fast, level: info}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
  namespace: prod
  labels: {app.kubernetes.io/part-of: shop, tier: back}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - {name: worker, image: "worker:1"}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: prod}
spec:
  ports: [{port: 80}]
`

// apply applies patches to the rendered objects and expects no error.
func apply(patches ...patch.Patch) []client.Object {
	out, err := patch.Apply(objects(rendered), patches)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// applyError applies patches to the rendered objects and returns the error.
func applyError(patches ...patch.Patch) error {
	out, err := patch.Apply(objects(rendered), patches)
	Expect(err).To(HaveOccurred())
	Expect(out).To(BeNil())
	return err
}

// byName returns the YAML of the object named name among objs.
func byName(objs []client.Object, kind, name string) string {
	for _, obj := range objs {
		if obj.GetObjectKind().GroupVersionKind().Kind == kind && obj.GetName() == name {
			return yamlOf([]client.Object{obj})
		}
	}
	Fail("no " + kind + " " + name)
	return ""
}

// renderedYAML returns the YAML of the rendered object kind/name as it was.
func renderedYAML(kind, name string) string {
	return byName(objects(rendered), kind, name)
}

var _ = Describe("Apply", func() {
	It("merges the containers of a Deployment by name with a strategic merge patch", func() {
		out := apply(patch.Patch{Patch: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - {name: web, image: "web:2", resources: {limits: {memory: 1Gi}}}
`})
		Expect(byName(out, "Deployment", "web")).To(MatchYAML(yamlOf(objects(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
  labels: {app.kubernetes.io/part-of: shop, tier: front}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - {name: web, image: "web:2", resources: {limits: {cpu: 100m, memory: 1Gi}}}
      - {name: proxy, image: "envoy:1"}
`))))
	})

	It("patches every object a label selector picks", func() {
		out := apply(patch.Patch{
			Patch:  `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "any"}, "spec": {"replicas": 3}}`,
			Target: &patch.Selector{Kind: "Deployment", LabelSelector: "app.kubernetes.io/part-of=shop"},
		})
		for _, name := range []string{"web", "worker"} {
			u := findUnstructured(out, "Deployment", name)
			Expect(u.GetName()).To(Equal(name), "the patch's own name is ignored")
			Expect(replicas(u)).To(Equal(int64(3)))
		}
		Expect(byName(out, "ConfigMap", "settings")).To(Equal(renderedYAML("ConfigMap", "settings")))
	})

	It("adds, replaces and removes with a JSON 6902 patch", func() {
		out := apply(patch.Patch{
			Patch: `
- {op: add, path: /data/extra, value: "yes"}
- {op: replace, path: /data/mode, value: slow}
- {op: remove, path: /data/level}
`,
			Target: &patch.Selector{Version: "v1", Kind: "ConfigMap", Name: "settings"},
		})
		Expect(byName(out, "ConfigMap", "settings")).To(MatchYAML(yamlOf(objects(`
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: prod}
data: {mode: slow, extra: "yes"}
`))))
	})

	It("reads a JSON 6902 patch written as JSON", func() {
		out := apply(patch.Patch{
			Patch:  `[{"op": "replace", "path": "/spec/ports/0/port", "value": 8080}]`,
			Target: &patch.Selector{Kind: "Service"},
		})
		u := findUnstructured(out, "Service", "web")
		ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
		Expect(ports).To(Equal([]any{map[string]any{"port": int64(8080)}}))
	})

	It("selects by a name regex that must match the whole name", func() {
		out := apply(patch.Patch{
			Patch:  `[{"op": "add", "path": "/metadata/annotations", "value": {"patched": "yes"}}]`,
			Target: &patch.Selector{Name: "w.*", Namespace: "pro."},
		})
		Expect(patchedNames(out)).To(Equal([]string{"Deployment/web", "Deployment/worker", "Service/web"}))

		out = apply(patch.Patch{
			Patch:  `[{"op": "add", "path": "/metadata/labels", "value": {"patched": "yes"}}]`,
			Target: &patch.Selector{Kind: "ConfigMap|Service", Name: "web|settings"},
		})
		Expect(patchedNames(out)).To(Equal([]string{"ConfigMap/settings", "Service/web"}))
	})

	It("applies patches in order, each to the result of the one before", func() {
		out := apply(
			patch.Patch{Patch: `[{"op": "replace", "path": "/data/mode", "value": "slow"}]`, Target: &patch.Selector{Kind: "ConfigMap"}},
			patch.Patch{Patch: `[{"op": "test", "path": "/data/mode", "value": "slow"}, {"op": "add", "path": "/data/checked", "value": "true"}]`, Target: &patch.Selector{Kind: "ConfigMap"}},
		)
		u := findUnstructured(out, "ConfigMap", "settings")
		Expect(u.Object["data"]).To(Equal(map[string]any{"mode": "slow", "level": "info", "checked": "true"}))
	})

	It("keeps the order of the objects", func() {
		out := apply(
			patch.Patch{Patch: `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {"type": "NodePort"}}`},
			patch.Patch{Patch: `[{"op": "add", "path": "/spec/paused", "value": true}]`, Target: &patch.Selector{Kind: "Deployment"}},
		)
		Expect(kindNames(out)).To(Equal([]string{"Deployment/web", "ConfigMap/settings", "Deployment/worker", "Service/web"}))
	})

	It("returns objects no patch changed with the content they had, as new objects", func() {
		input := objects(rendered)
		out, err := patch.Apply(input, []patch.Patch{{
			Patch:  `[{"op": "replace", "path": "/spec/replicas", "value": 2}]`,
			Target: &patch.Selector{Kind: "Deployment", Name: "worker"},
		}})
		Expect(err).NotTo(HaveOccurred())
		for _, i := range []int{0, 1, 3} {
			Expect(out[i]).To(Equal(input[i]))
			Expect(out[i]).NotTo(BeIdenticalTo(input[i]))
		}
		Expect(yamlOf(input)).To(Equal(yamlOf(objects(rendered))), "the input is left as it was")
	})

	It("returns the input itself for no patches", func() {
		input := objects(rendered)
		out, err := patch.Apply(input, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(HaveLen(len(input)))
		for i := range out {
			Expect(out[i]).To(BeIdenticalTo(input[i]))
		}
	})

	It("merges a custom resource, whose schema it does not know, as JSON: maps key by key, lists whole", func() {
		crd := `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec:
  size: {width: 1, height: 2}
  tags: [a, b]
  items: [{name: a, v: 1}, {name: b, v: 2}]
`
		out, err := patch.Apply(objects(crd), []patch.Patch{{Patch: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec:
  size: {height: 3, depth: 4}
  tags: [c]
  items: [{name: b, v: 3}]
`}})
		Expect(err).NotTo(HaveOccurred())
		Expect(yamlOf(out)).To(MatchYAML(yamlOf(objects(`
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec:
  size: {width: 1, height: 3, depth: 4}
  tags: [c]
  items: [{name: b, v: 3}]
`))))
	})

	It("leaves no annotation of kustomize and no empty annotations", func() {
		out := apply(
			patch.Patch{Patch: `[{"op": "replace", "path": "/metadata/name", "value": "renamed"}]`, Target: &patch.Selector{Kind: "Service"}},
			patch.Patch{Patch: `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": 2}}`},
			patch.Patch{Patch: `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "annotations": {"keep": "me"}}}`, Target: &patch.Selector{Kind: "ConfigMap"}},
		)
		Expect(kindNames(out)).To(Equal([]string{"Deployment/web", "ConfigMap/settings", "Deployment/worker", "Service/renamed"}))
		for _, obj := range out {
			u := obj.(*unstructured.Unstructured)
			_, found, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "annotations")
			Expect(found).To(Equal(u.GetKind() == "ConfigMap"), "annotations of %s", u.GetName())
		}
		Expect(findUnstructured(out, "ConfigMap", "settings").GetAnnotations()).To(Equal(map[string]string{"keep": "me"}))
	})

	It("keeps kustomize's annotations that the input had", func() {
		input := objects(`
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {config.kubernetes.io/origin: "path: base/cm.yaml"}
data: {mode: fast}
`)
		out, err := patch.Apply(input, []patch.Patch{{
			Patch:  `[{"op": "replace", "path": "/data/mode", "value": "slow"}]`,
			Target: &patch.Selector{Kind: "ConfigMap"},
		}})
		Expect(err).NotTo(HaveOccurred())
		Expect(out[0].GetAnnotations()).To(Equal(map[string]string{"config.kubernetes.io/origin": "path: base/cm.yaml"}))
	})

	It("finds the object of a strategic merge patch without namespace in any namespace, or in its own", func() {
		out := apply(patch.Patch{Patch: `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: prod}
data: {mode: slow}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec: {replicas: 5}
`})
		Expect(patchedNames(out)).To(Equal([]string{"ConfigMap/settings", "Deployment/worker"}))
	})

	It("deletes an object with $patch: delete", func() {
		out := apply(patch.Patch{Patch: `
apiVersion: v1
kind: Service
metadata: {name: web}
$patch: delete
`})
		Expect(kindNames(out)).To(Equal([]string{"Deployment/web", "ConfigMap/settings", "Deployment/worker"}))
	})

	It("takes typed objects and returns them unstructured", func() {
		one := int32(1)
		input := []client.Object{
			&appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "prod"},
				Spec:       appsv1.DeploymentSpec{Replicas: &one},
			},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}, Data: map[string]string{"a": "b"}},
		}
		out, err := patch.Apply(input, []patch.Patch{{Patch: `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": 4}}`}})
		Expect(err).NotTo(HaveOccurred())
		Expect(replicas(out[0])).To(Equal(int64(4)))
		Expect(out[1].(*unstructured.Unstructured).GetKind()).To(Equal("ConfigMap"))
	})

	It("works as an object transformer", func() {
		transformer := patch.Transformer([]patch.Patch{{Patch: `[{"op": "remove", "path": "/data/level"}]`, Target: &patch.Selector{Kind: "ConfigMap"}}})
		out, err := transformer.TransformObjects(context.Background(), "prod", "shop", objects(rendered))
		Expect(err).NotTo(HaveOccurred())
		Expect(findUnstructured(out, "ConfigMap", "settings").Object["data"]).To(Equal(map[string]any{"mode": "fast"}))
	})
})

var _ = Describe("Apply errors", func() {
	ok := patch.Patch{Patch: `[{"op": "add", "path": "/data/x", "value": "y"}]`, Target: &patch.Selector{Kind: "ConfigMap"}}

	It("fails for a target that matches no object", func() {
		err := applyError(ok, patch.Patch{
			Patch:  `[{"op": "add", "path": "/spec/paused", "value": true}]`,
			Target: &patch.Selector{Kind: "Deployment", Name: "web", Namespace: "test"},
		})
		Expect(err).To(MatchError("patch 2 (target kind=Deployment name=web namespace=test): matches no object"))
		Expect(err).To(MatchError(patch.ErrNoMatch))

		err = applyError(patch.Patch{
			Patch:  `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "any"}, "spec": {"replicas": 2}}`,
			Target: &patch.Selector{LabelSelector: "tier=middle"},
		})
		Expect(err).To(MatchError("patch 1 (target labelSelector=tier=middle): matches no object"))
	})

	It("fails for a strategic merge patch without target that names no object", func() {
		err := applyError(ok, ok, patch.Patch{Patch: `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: slow}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec: {replicas: 2}
`})
		Expect(err).To(MatchError("patch 3 (apps/v1 Deployment api): matches no object"))
		Expect(err).To(MatchError(patch.ErrNoMatch))

		err = applyError(patch.Patch{Patch: `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "test"}}`})
		Expect(err).To(MatchError("patch 1 (v1 ConfigMap test/settings): matches no object"))
	})

	It("fails for a strategic merge patch without namespace that names objects in two namespaces", func() {
		_, err := patch.Apply(objects(`
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: b}
`), []patch.Patch{{Patch: `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"x": "y"}}`}})
		Expect(err).To(MatchError("patch 1 (v1 ConfigMap settings): matches 2 objects (v1 ConfigMap a/settings, v1 ConfigMap b/settings); give the namespace of the one to patch"))
	})

	It("fails for a patch that does not parse, naming it", func() {
		err := applyError(ok, patch.Patch{Patch: "kind: [", Target: &patch.Selector{Kind: "ConfigMap"}})
		Expect(err).To(MatchError(HavePrefix("patch 2 (target kind=ConfigMap): is not a strategic merge patch: ")))
		Expect(err).To(MatchError(ContainSubstring("did not find expected node content")))

		err = applyError(patch.Patch{Patch: "spec: {replicas: 2}"})
		Expect(err).To(MatchError("patch 1: is not a strategic merge patch: missing Resource metadata"))

		err = applyError(patch.Patch{Patch: "# nothing yet", Target: &patch.Selector{Kind: "ConfigMap"}})
		Expect(err).To(MatchError("patch 1 (target kind=ConfigMap): holds no patch"))
	})

	It("fails for a strategic merge patch with a target and two objects", func() {
		Expect(applyError(patch.Patch{
			Patch:  "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n",
			Target: &patch.Selector{Kind: "ConfigMap"},
		})).To(MatchError("patch 1 (target kind=ConfigMap): holds 2 objects; a strategic merge patch with a target must hold one"))
	})

	It("fails for a JSON 6902 patch without target", func() {
		Expect(applyError(ok, ok, ok, patch.Patch{Patch: `[{"op": "remove", "path": "/data"}]`})).
			To(MatchError("patch 4: a JSON 6902 patch needs a target"))
	})

	It("fails for an unknown JSON 6902 operation, naming the patch and the object", func() {
		err := applyError(patch.Patch{Patch: `[{"op": "frobnicate", "path": "/data"}]`, Target: &patch.Selector{Kind: "ConfigMap"}})
		Expect(err).To(MatchError(HavePrefix("patch 1 (target kind=ConfigMap): v1 ConfigMap prod/settings: ")))
		Expect(err).To(MatchError(ContainSubstring("frobnicate")))
	})

	It("fails for a JSON 6902 patch that does not apply, naming the patch and the object", func() {
		err := applyError(patch.Patch{
			Patch:  `[{"op": "replace", "path": "/spec/strategy/type", "value": "Recreate"}]`,
			Target: &patch.Selector{Kind: "Deployment", Name: "worker"},
		})
		Expect(err).To(MatchError(HavePrefix("patch 1 (target kind=Deployment name=worker): apps/v1 Deployment prod/worker: ")))
		Expect(err).To(MatchError(HaveSuffix(`replace operation does not apply: doc is missing path: /spec/strategy/type: missing value`)))
	})

	It("fails for a target that is not a valid regular expression", func() {
		Expect(applyError(patch.Patch{Patch: `[{"op": "remove", "path": "/data"}]`, Target: &patch.Selector{Name: "web("}})).
			To(MatchError(HavePrefix("patch 1 (target name=web(): selecting objects: ")))
	})

	It("fails for two objects with the same kind, namespace and name", func() {
		_, err := patch.Apply(objects(`
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
`), []patch.Patch{ok})
		Expect(err).To(MatchError(HavePrefix("object 2 (ConfigMap settings): ")))
	})
})

// findUnstructured returns the object kind/name among objs.
func findUnstructured(objs []client.Object, kind, name string) *unstructured.Unstructured {
	for _, obj := range objs {
		if u := obj.(*unstructured.Unstructured); u.GetKind() == kind && u.GetName() == name {
			return u
		}
	}
	Fail("no " + kind + " " + name)
	return nil
}

// replicas returns .spec.replicas of obj, which must be unstructured.
func replicas(obj client.Object) int64 {
	value, found, err := unstructured.NestedInt64(obj.(*unstructured.Unstructured).Object, "spec", "replicas")
	Expect(err).NotTo(HaveOccurred())
	Expect(found).To(BeTrue())
	return value
}

// kindNames lists objs as "Kind/name".
func kindNames(objs []client.Object) []string {
	out := make([]string, 0, len(objs))
	for _, obj := range objs {
		out = append(out, obj.GetObjectKind().GroupVersionKind().Kind+"/"+obj.GetName())
	}
	return out
}

// patchedNames lists, as "Kind/name", the objects of out that differ from
// the rendered objects of the same position.
func patchedNames(out []client.Object) []string {
	input := objects(rendered)
	Expect(out).To(HaveLen(len(input)))
	var changed []string
	for i := range out {
		if yamlOf(out[i:i+1]) != yamlOf(input[i:i+1]) {
			changed = append(changed, kindNames(out[i:i+1])...)
		}
	}
	return changed
}
