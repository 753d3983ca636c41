package dashboard_test

import (
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/dashboard"
)

// A ComponentDefinition's status is written here as the operator would
// write it: revision 2 rolling out, halted in its first wave at shop/a,
// with one instance at revision 2 and two at revision 1; its kind's CRD
// is served, and an instance of it has a Component's status.
var _ = Describe("ComponentDefinitions on the page", Ordered, func() {
	const ns = "defined"
	var page *httptest.Server
	def := &v1alpha1.ComponentDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "databases.page.example.com"},
		Spec: v1alpha1.ComponentDefinitionSpec{Group: "page.example.com", Version: "v1alpha1",
			Names: v1alpha1.DefinitionNames{Kind: "Database", Plural: "databases"}, Source: v1alpha1.DefinitionSource{Source: "app"}},
	}

	BeforeAll(func() {
		kind := v1alpha1.GroupVersion.WithKind("ComponentDefinition")
		h, err := startPage(ctx, env.Config, dashboard.Options{Log: zap.New(zap.WriteTo(GinkgoWriter)), Definitions: &kind}, func(f func()) { DeferCleanup(f) })
		Expect(err).NotTo(HaveOccurred())
		page = httptest.NewServer(h)
		DeferCleanup(page.Close)

		yes := true
		crd, err := crdgen.CRD("wavekit.dev", def, apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &yes})
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Client.Create(ctx, crd)).To(Succeed())
		Eventually(func() bool {
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(crd), crd)).To(Succeed())
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return true
				}
			}
			return false
		}).WithTimeout(10 * time.Second).Should(BeTrue())
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		db := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"source": 42, "chart": "not a chart"}}}
		db.SetAPIVersion("page.example.com/v1alpha1")
		db.SetKind("Database")
		db.SetNamespace(ns)
		db.SetName("orders")
		Expect(env.Client.Create(ctx, db)).To(Succeed())
		status, err := runtimeStatus(readyStatus(), 2)
		Expect(err).NotTo(HaveOccurred())
		db.Object["status"] = status
		Expect(env.Client.Status().Update(ctx, db)).To(Succeed())

		Expect(env.Client.Create(ctx, def)).To(Succeed())
		def.Status = v1alpha1.ComponentDefinitionStatus{APIVersion: "page.example.com/v1alpha1", Kind: "Database", Revision: 2, Instances: 3,
			Revisions: []v1alpha1.RevisionSummary{{Revision: 2, Instances: 1, Source: "https://charts.example.com 1.1.0"}, {Revision: 1, Instances: 2}},
			Rollout: &v1alpha1.DefinitionRolloutStatus{Revision: 2, From: 1, Phase: v1alpha1.RolloutHalted, Wave: 1, Waves: 3,
				Failed: &v1alpha1.DefinitionRolloutFailure{Instance: ns + "/a", Reason: "Error"}},
			Conditions: []metav1.Condition{{Type: component.ConditionReady, Status: metav1.ConditionFalse, Reason: "RolloutHalted",
				Message: "the rollout halted in wave canary: " + ns + "/a failed at revision 2", LastTransitionTime: metav1.Now()}}}
		Expect(env.Client.Status().Update(ctx, def)).To(Succeed())
	})

	It("lists the definition with its revisions and where its rollout halted", func() {
		Eventually(func() string { return get(page.URL + "/") }).WithTimeout(10 * time.Second).
			Should(ContainSubstring(`data-definition="databases.page.example.com" data-reason="RolloutHalted" data-rollout="Halted"`))
		body := get(page.URL + "/")
		Expect(body).To(ContainSubstring("<td>Database (page.example.com/v1alpha1)</td>"))
		Expect(body).To(ContainSubstring(`<span class="tag" title="https://charts.example.com 1.1.0">2: 1</span> <span class="tag" title="">1: 2</span>`))
		Expect(body).To(ContainSubstring(`<span class="waves">1/3</span> <small>at <b class="failed">` + ns + `/a</b></small>`))
		Expect(get(local.URL+"/")).NotTo(ContainSubstring("data-definition="), "a page without a definition kind shows none")
	})

	It("shows the instances of the kind a definition serves as components, whatever their spec holds", func() {
		Eventually(func() string { return get(page.URL + "/") }).WithTimeout(10 * time.Second).
			Should(ContainSubstring(`data-component="` + ns + `/orders" data-state="Ready"`))
		Expect(get(page.URL + "/c/database.page.example.com/" + ns + "/orders")).To(ContainSubstring("orders"))
	})
})

// runtimeStatus is status, and the revision an instance runs, as JSON values.
func runtimeStatus(status component.Status, revision int64) (map[string]any, error) {
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&status)
	if err != nil {
		return nil, err
	}
	out["revision"] = revision
	return out, nil
}
