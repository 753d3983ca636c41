package dashboard_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("the page without a login", Ordered, func() {
	BeforeAll(func() {
		for _, ns := range []string{"shop", "blog"} {
			Expect(client.IgnoreAlreadyExists(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
		}
		createWithStatus("shop", "web", holdingStatus())
		createWithStatus("blog", "db", readyStatus())
	})

	It("lists every Component with its state, Ready reason and waves", func() {
		// The cache sees the status a moment after the API server has it.
		// Other specs' Components are Ready too: wait for these two.
		Eventually(func() string { return get(local.URL + "/") }).WithTimeout(10 * time.Second).
			Should(And(ContainSubstring(`data-component="shop/web" data-state="Processing"`),
				ContainSubstring(`data-component="blog/db" data-state="Ready"`)))
		body := get(local.URL + "/")
		Expect(body).To(ContainSubstring("WaitingForWave"))
		Expect(body).To(ContainSubstring("1/2"))
		Expect(body).To(ContainSubstring("source app"))
	})

	It("filters by namespace, state and name", func() {
		Expect(get(local.URL + "/?namespace=blog")).NotTo(ContainSubstring(`data-component="shop/web"`))
		Expect(get(local.URL + "/?state=Ready")).NotTo(ContainSubstring(`data-component="shop/web"`))
		body := get(local.URL + "/?q=we")
		Expect(body).To(ContainSubstring(`data-component="shop/web"`))
		Expect(body).NotTo(ContainSubstring(`data-component="blog/db"`))
	})

	It("shows a Component's waves in order and what holds a wave", func() {
		body := get(local.URL + "/c/component.wavekit.dev/shop/web")
		Expect(strings.Index(body, `data-wave="0" data-state="done"`)).To(BeNumerically("<", strings.Index(body, `data-wave="1" data-state="holding"`)))
		Expect(body).To(ContainSubstring(`data-object="Deployment/web" data-holds="true"`))
		Expect(body).To(ContainSubstring(`data-object="PostgresDatabase/orders"`), "a dependent outside Kubernetes in its wave")
		Expect(body).To(ContainSubstring("kubectl get deployment.apps -n shop web -o yaml"))
		Expect(body).To(ContainSubstring("kubectl wavekit tree shop/web"))
		Expect(body).To(ContainSubstring(`Last traced Reconcile: trace <code class="trace">` + webTrace + `</code>`))
		Expect(get(local.URL+"/c/component.wavekit.dev/blog/db")).NotTo(ContainSubstring("Last traced Reconcile"), "a Reconcile that was not traced")
		Expect(body).To(ContainSubstring("<h2>Chart dependencies</h2>"))
		Expect(body).To(ContainSubstring(`<td>database <small>(postgresql)</small></td><td>15.5.38</td><td>oci://registry.example/charts</td>`))
		Expect(get(local.URL+"/c/component.wavekit.dev/blog/db")).NotTo(ContainSubstring("Chart dependencies"), "a render that brought none")
	})

	It("answers 404 for a Component that does not exist", func() {
		code, _ := request(http.MethodGet, local.URL+"/c/component.wavekit.dev/shop/nothing")
		Expect(code).To(Equal(http.StatusNotFound))
	})

	It("answers 405 to anything but GET and HEAD, also to the login form without a login", func() {
		for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
			for _, path := range []string{"/", "/login", "/c/component.wavekit.dev/shop/web"} {
				code, _ := request(method, local.URL+path)
				Expect(code).To(Equal(http.StatusMethodNotAllowed), method+" "+path)
			}
		}
		code, _ := request(http.MethodHead, local.URL+"/")
		Expect(code).To(Equal(http.StatusOK))
	})

	It("tells an open page of a change, by server-sent events", func() {
		resp, err := http.Get(local.URL + "/live?namespace=blog")
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.Header.Get("Content-Type")).To(Equal("text/event-stream"))
		lines := make(chan string, 100)
		go func() {
			defer GinkgoRecover()
			scanner := bufio.NewScanner(resp.Body)
			for scanner.Scan() {
				lines <- scanner.Text()
			}
			close(lines)
		}()
		Eventually(lines).WithTimeout(10 * time.Second).Should(Receive(Equal(": live")))
		var c v1alpha1.Component
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: "blog", Name: "db"}, &c)).To(Succeed())
		c.Status.Conditions[0].Message = "changed"
		Expect(env.Client.Status().Update(ctx, &c)).To(Succeed())
		Eventually(lines).WithTimeout(10 * time.Second).Should(Receive(Equal("event: change")))
	})
})

// get returns the body of GET url, which must answer 200.
func get(url string) string {
	GinkgoHelper()
	code, body := request(http.MethodGet, url)
	Expect(code).To(Equal(http.StatusOK), body)
	return body
}

// request sends method url and returns the code and body.
func request(method, url string) (int, string) {
	GinkgoHelper()
	req, err := http.NewRequest(method, url, nil)
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, string(body)
}

// createWithStatus creates a Component of the source app and writes its
// status, as its operator would.
func createWithStatus(namespace, name string, status component.Status) {
	GinkgoHelper()
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	c.Spec.Source = "app"
	Expect(env.Client.Create(ctx, c)).To(Succeed())
	c.Status = status
	Expect(env.Client.Status().Update(ctx, c)).To(Succeed())
}

// webTrace is the trace of shop/web's last traced Reconcile.
const webTrace = "0af7651916cd43dd8448eb211c80319c"

// holdingStatus is a Component whose Deployment of wave 1 holds it, last
// written by a traced Reconcile.
func holdingStatus() component.Status {
	return component.Status{
		State:       component.StateProcessing,
		LastTraceID: webTrace,
		Source: &manifests.SourceInfo{URL: "https://git.example/shop.git", Revision: "main@sha1:0123",
			Dependencies: []manifests.DependencyInfo{{Name: "database", Chart: "postgresql", Version: "15.5.38", Repository: "oci://registry.example/charts", Digest: "sha256:0a1b"}}},
		Conditions: []metav1.Condition{{Type: component.ConditionReady, Status: metav1.ConditionFalse, Reason: "WaitingForWave",
			Message: "wave 1: Deployment web is not ready", LastTransitionTime: metav1.Now()}},
		Inventory: []manifests.InventoryItem{
			{Version: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "web-config", ApplyOrder: 0, Phase: manifests.PhaseReady},
			{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "shop", Name: "web", ApplyOrder: 1, Phase: manifests.PhaseCreating,
				Status: "InProgress: 0 of 1 updated replicas are available"},
		},
		Externals: []manifests.ExternalItem{
			{Kind: "PostgresDatabase", Name: "orders", Key: "shop-web-orders", Phase: manifests.PhaseReady},
		},
	}
}

// readyStatus is a Ready Component of one wave.
func readyStatus() component.Status {
	return component.Status{
		State: component.StateReady,
		Conditions: []metav1.Condition{{Type: component.ConditionReady, Status: metav1.ConditionTrue, Reason: "Ready",
			Message: "every object is ready", LastTransitionTime: metav1.Now()}},
		Inventory: []manifests.InventoryItem{
			{Version: "v1", Kind: "ConfigMap", Namespace: "blog", Name: "db-config", Phase: manifests.PhaseReady},
		},
	}
}
