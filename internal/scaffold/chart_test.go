package scaffold_test

import (
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/internal/scaffold"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The scaffolded chart serves metrics as the reference operator's chart
// does: HTTPS with authentication and authorization on 8443 by default.
var _ = Describe("the scaffolded chart's metrics", func() {
	// render renders the scaffolded operator chart as release "redis" in
	// namespace "ops" and returns its objects by kind/name.
	render := func(values map[string]any) map[string]*unstructured.Unstructured {
		GinkgoHelper()
		dir := filepath.Join(GinkgoT().TempDir(), "project")
		_, err := scaffold.Generate(dir, validOptions())
		Expect(err).NotTo(HaveOccurred())
		chart, err := loader.Load(filepath.Join(dir, "config", "chart"))
		Expect(err).NotTo(HaveOccurred())
		renderValues, err := chartutil.ToRenderValues(chart, values,
			chartutil.ReleaseOptions{Name: "redis", Namespace: "ops", IsInstall: true}, chartutil.DefaultCapabilities)
		Expect(err).NotTo(HaveOccurred())
		files, err := engine.Render(chart, renderValues)
		Expect(err).NotTo(HaveOccurred())
		objects := map[string]*unstructured.Unstructured{}
		for name, content := range files {
			if !strings.HasSuffix(name, ".yaml") {
				continue
			}
			decoded, err := manifests.DecodeObjects(name, []byte(content))
			Expect(err).NotTo(HaveOccurred())
			for _, u := range decoded {
				objects[u.GetKind()+"/"+u.GetName()] = u
			}
		}
		return objects
	}
	container := func(objects map[string]*unstructured.Unstructured) map[string]any {
		GinkgoHelper()
		Expect(objects).To(HaveKey("Deployment/redis"))
		containers, _, _ := unstructured.NestedSlice(objects["Deployment/redis"].Object, "spec", "template", "spec", "containers")
		Expect(containers).To(HaveLen(1))
		return containers[0].(map[string]any)
	}

	It("are HTTPS on 8443 with TokenReviews and SubjectAccessReviews for the operator and a reader role by default", func() {
		objects := render(nil)
		c := container(objects)
		Expect(c["args"]).To(ContainElements("--metrics-bind-address=:8443", "--metrics-secure=true"))
		Expect(c["ports"]).To(ContainElement(HaveKeyWithValue("containerPort", BeNumerically("==", 8443))))

		Expect(objects).To(HaveKey("ClusterRole/redis-metrics-auth"))
		rules, _, _ := unstructured.NestedSlice(objects["ClusterRole/redis-metrics-auth"].Object, "rules")
		Expect(rules).To(ConsistOf(
			And(HaveKeyWithValue("resources", ConsistOf("tokenreviews")), HaveKeyWithValue("verbs", ConsistOf("create"))),
			And(HaveKeyWithValue("resources", ConsistOf("subjectaccessreviews")), HaveKeyWithValue("verbs", ConsistOf("create"))),
		))
		subjects, _, _ := unstructured.NestedSlice(objects["ClusterRoleBinding/redis-metrics-auth"].Object, "subjects")
		Expect(subjects).To(ConsistOf(And(HaveKeyWithValue("kind", "ServiceAccount"), HaveKeyWithValue("name", "redis"), HaveKeyWithValue("namespace", "ops"))))

		rules, _, _ = unstructured.NestedSlice(objects["ClusterRole/redis-metrics-reader"].Object, "rules")
		Expect(rules).To(ConsistOf(And(HaveKeyWithValue("nonResourceURLs", ConsistOf("/metrics")), HaveKeyWithValue("verbs", ConsistOf("get")))))
		Expect(objects).NotTo(HaveKey("ClusterRoleBinding/redis-metrics-reader"))

		Expect(objects).To(HaveKey("Service/redis-metrics"))
		ports, _, _ := unstructured.NestedSlice(objects["Service/redis-metrics"].Object, "spec", "ports")
		Expect(ports).To(ConsistOf(And(HaveKeyWithValue("port", BeNumerically("==", 8443)), HaveKeyWithValue("appProtocol", "https"))))
	})

	It("bind the reader role to metrics.readers and mount metrics.certSecret", func() {
		objects := render(map[string]any{"metrics": map[string]any{
			"certSecret": "redis-metrics-tls",
			"readers":    []any{map[string]any{"kind": "ServiceAccount", "name": "prometheus", "namespace": "monitoring"}},
		}})
		subjects, _, _ := unstructured.NestedSlice(objects["ClusterRoleBinding/redis-metrics-reader"].Object, "subjects")
		Expect(subjects).To(ConsistOf(And(HaveKeyWithValue("name", "prometheus"), HaveKeyWithValue("namespace", "monitoring"))))
		c := container(objects)
		Expect(c["args"]).To(ContainElement("--metrics-cert-dir=/metrics-certs"))
		Expect(c["volumeMounts"]).To(ContainElement(HaveKeyWithValue("mountPath", "/metrics-certs")))
	})

	It("are plain HTTP without the review rights when metrics.secure is false, and off when metrics.enabled is false", func() {
		objects := render(map[string]any{"metrics": map[string]any{"secure": false}})
		Expect(container(objects)["args"]).To(ContainElement("--metrics-secure=false"))
		Expect(objects).NotTo(HaveKey("ClusterRole/redis-metrics-auth"))
		Expect(objects).NotTo(HaveKey("ClusterRole/redis-metrics-reader"))

		objects = render(map[string]any{"metrics": map[string]any{"enabled": false}})
		Expect(container(objects)["args"]).To(ContainElement("--metrics-bind-address=0"))
		Expect(objects).NotTo(HaveKey("Service/redis-metrics"))
		Expect(objects).NotTo(HaveKey("ClusterRole/redis-metrics-auth"))
	})

	It("serve the status page, its Service and the review rights only with web.enabled", func() {
		objects := render(map[string]any{})
		Expect(container(objects)["args"]).NotTo(ContainElement(HavePrefix("--web-bind-address")))
		Expect(objects).NotTo(HaveKey("Service/redis-web"))
		Expect(objects).NotTo(HaveKey("ClusterRole/redis-web-auth"))

		objects = render(map[string]any{"web": map[string]any{"enabled": true}})
		Expect(container(objects)["args"]).To(ContainElement("--web-bind-address=:9090"))
		Expect(objects).To(HaveKey("Service/redis-web"))
		Expect(objects).To(HaveKey("ClusterRoleBinding/redis-web-auth"))
		rules, _, _ := unstructured.NestedSlice(objects["ClusterRole/redis-web-auth"].Object, "rules")
		Expect(rules).To(HaveLen(2), "tokenreviews and subjectaccessreviews, nothing else")
	})
})
