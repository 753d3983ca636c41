package drift

import (
	"reflect"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// renderedDesired is the rendered object of the YAML text, at digest.
func renderedDesired(text, digest string) Rendered {
	GinkgoHelper()
	obj := map[string]any{}
	Expect(yaml.Unmarshal([]byte(text), &obj)).To(Succeed())
	u := &unstructured.Unstructured{Object: obj}
	gvk := u.GroupVersionKind()
	return Rendered{Object: u.Object, GVK: gvk, Digest: digest,
		Key: manifests.ObjectKey{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}}
}

// yamlObject is the normalised JSON object of text.
func yamlObject(text string) map[string]any {
	GinkgoHelper()
	obj := map[string]any{}
	Expect(yaml.Unmarshal([]byte(text), &obj)).To(Succeed())
	return normalisedObject(obj)
}

// The Deployment of a chart with the fields the API server stores otherwise
// than rendered: zero values of non-pointer omitempty fields, quantities in
// other than canonical form, an env var with an empty value.
const chartDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web}, annotations: {}}
spec:
  minReadySeconds: 0
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      hostNetwork: false
      enableServiceLinks: false
      tolerations: []
      containers:
        - name: web
          image: web:1
          env: [{name: EMPTY, value: ""}]
          readinessProbe: {initialDelaySeconds: 0, periodSeconds: 5, httpGet: {path: /, port: http}}
          resources: {requests: {cpu: 0.5, memory: 1024Mi}, limits: {cpu: 1000m}}
`

// How the API server stores it: the zero values left out, defaults added,
// quantities canonical.
const storedDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web}, generation: 1, annotations: {deployment.kubernetes.io/revision: "1"}}
spec:
  replicas: 2
  revisionHistoryLimit: 10
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      enableServiceLinks: false
      dnsPolicy: ClusterFirst
      containers:
        - name: web
          image: web:1
          imagePullPolicy: IfNotPresent
          env: [{name: EMPTY}]
          readinessProbe: {periodSeconds: 5, timeoutSeconds: 1, httpGet: {path: /, port: http, scheme: HTTP}}
          resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: "1"}}
`

var _ = Describe("storedForms (compare in the API server's terms)", func() {
	scheme := clientgoscheme.Scheme

	It("decodes a built-in kind into its Go type: the stored object holds the render", func() {
		forms := NewStoredForms(scheme)
		want, exact := forms.Of(renderedDesired(chartDeployment, "d1"))
		Expect(exact).To(BeFalse())
		Expect(jsonvalue.Contains(yamlObject(storedDeployment), want)).To(BeTrue())
		var paths []string
		differences(yamlObject(storedDeployment), want, nil, nil, &paths)
		Expect(paths).To(BeEmpty())
	})

	It("still sees a rendered zero value that someone changed", func() {
		forms := NewStoredForms(scheme)
		want, _ := forms.Of(renderedDesired(chartDeployment, "d1"))
		edited := yamlObject(storedDeployment)
		podSpec := jsonvalue.Lookup(edited, manifests.Pointer{"spec", "template", "spec"}).(map[string]any)
		podSpec["hostNetwork"] = true
		var paths []string
		differences(edited, want, nil, nil, &paths)
		Expect(paths).To(Equal([]string{"/spec/template/spec/hostNetwork"}))
	})

	It("still sees a quantity someone changed", func() {
		forms := NewStoredForms(scheme)
		want, _ := forms.Of(renderedDesired(chartDeployment, "d1"))
		edited := yamlObject(storedDeployment)
		requests := jsonvalue.Lookup(edited, manifests.Pointer{"spec", "template", "spec", "containers", "0", "resources", "requests"}).(map[string]any)
		requests["cpu"] = "600m"
		var paths []string
		differences(edited, want, nil, nil, &paths)
		Expect(paths).To(Equal([]string{"/spec/template/spec/containers/0/resources/requests/cpu"}))
	})

	It("learns the stored form from the API server's answer: pruned fields are not compared, allocated ones are", func() {
		forms := NewStoredForms(scheme)
		service := renderedDesired(`
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {clusterIP: "", ports: [{port: 80, targetPort: "8080"}]}`, "s1")
		answer := yamlObject(`
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop, uid: u}
spec: {clusterIP: 10.0.0.7, clusterIPs: [10.0.0.7], type: ClusterIP, ports: [{port: 80, protocol: TCP, targetPort: "8080"}]}`)
		forms.Learn(service, answer)
		want, exact := forms.Of(service)
		Expect(exact).To(BeTrue())
		Expect(jsonvalue.Contains(answer, want)).To(BeTrue())

		widget := renderedDesired(`
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: shop}
spec: {size: 3, unknownToTheSchema: yes}`, "w1")
		want, exact = forms.Of(widget)
		Expect(exact).To(BeFalse(), "the scheme does not know the kind")
		stored := yamlObject(`{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: shop}, spec: {size: 3, mode: fast}}`)
		Expect(jsonvalue.Contains(stored, want)).To(BeFalse(), "as rendered, the pruned field looks drifted")
		forms.Learn(widget, stored)
		want, _ = forms.Of(widget)
		Expect(jsonvalue.Contains(stored, want)).To(BeTrue())
	})

	It("forgets a learnt form when the render changes", func() {
		forms := NewStoredForms(scheme)
		d := renderedDesired(`{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {size: 3, pruned: x}}`, "w1")
		forms.Learn(d, yamlObject(`{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {size: 3}}`))
		_, exact := forms.Of(d)
		Expect(exact).To(BeTrue())
		d.Digest = "w2"
		_, exact = forms.Of(d)
		Expect(exact).To(BeFalse())
	})

	It("leaves an object its Go type cannot hold as rendered", func() {
		forms := NewStoredForms(scheme)
		d := renderedDesired(`{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {a: [not, a, string]}}`, "c1")
		want, _ := forms.Of(d)
		Expect(want).To(Equal(normalisedObject(d.Object)))
		Expect(d.GVK).To(Equal(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}))
	})
})

// TestStoredFormMadeOnce checks that a stored form is made once per render
// digest and that a learnt form is not replaced by the form of a pass that
// read the entry before.
func TestStoredFormMadeOnce(t *testing.T) {
	forms := NewStoredForms(nil)
	key := manifests.ObjectKey{Kind: "Widget", Name: "w"}
	obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": map[string]any{"size": int64(3)}}
	d := Rendered{Key: key, Digest: "d1", Object: obj}
	first, _ := forms.Of(d)
	second, _ := forms.Of(d)
	if reflect.ValueOf(first).Pointer() != reflect.ValueOf(second).Pointer() {
		t.Error("the stored form was made twice for one digest")
	}
	forms.Learn(d, map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": map[string]any{"size": int64(3), "mode": "x"}})
	forms.keep(key, storedForm{digest: "d1"})
	if _, exact := forms.Of(d); !exact {
		t.Error("an inexact form replaced the learnt one")
	}
}
