package reliability_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// kube-apiserver is stopped and started again (etcd keeps running) while the
// operator binary waits in the middle of the crash test's 5-wave component:
// wave 1 is applied, its Widget not ready. The operator process lives
// through it, notices the outage, picks up the Widget that becomes ready
// right after the restart from the event (the component's timeout requeue
// is 10 minutes away) and converges without writing any object twice.
var _ = Describe("API server restart", Ordered, func() {
	const (
		ns      = "apiserver"
		waves   = 5
		perWave = 20
		watched = perWave - 1 // the history watches all but the Widget
	)
	ctx := context.Background()
	var (
		op *binaryOperator
		c  = newComponent(ns, "app", "crash", nil)
	)

	BeforeAll(func() {
		newNamespace(ctx, ns)
		op = newBinaryOperator()
	})

	It("keeps the operator running through a restart in the middle of a wave, and it converges", func() {
		history := watchHistory(ctx, ns, crashOperator)
		metrics := freeAddress()
		// Plain HTTP: this spec reads client-go's request counters, not the endpoint's security.
		op.start("--metrics-bind-address", metrics, "--metrics-secure=false")
		session := op.session
		pid := session.Command.Process.Pid
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		DeferCleanup(removeComponent, ctx, c)

		By("waiting in wave 1: its objects applied, its Widget not ready")
		setWidgetReady(ctx, ns, widgetName(0))
		eventually(func() string { return readyCondition(ctx, c) }).
			Should(HavePrefix("False/Processing: waiting for wave 1: "))
		before := ownedIn(ctx, ns)
		Expect(before).To(HaveLen(2 * perWave))
		expectInventoryHas(ctx, c, before)
		eventually(history.objects).Should(Equal(2 * watched))
		Expect(history.unexpected(map[watch.EventType]int{watch.Added: 1})).To(BeEmpty(), "objects written more than once")

		failedRequests := MatchRegexp(`(?m)^rest_client_requests_total\{code="<error>",[^}]*\} [1-9]`)
		Expect(get("http://"+metrics+"/metrics")).NotTo(failedRequests, "the operator failed to reach the API server before the restart")

		By("restarting kube-apiserver")
		// down runs while the server is away; it must not panic (that would
		// leave the server down), so it records its findings for later.
		var downErr error
		var downFailures []string
		g := NewGomega(func(message string, _ ...int) { downFailures = append(downFailures, message) })
		restartCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		defer cancel()
		Expect(env.RestartAPIServer(restartCtx, func() {
			downErr = env.Client.Get(ctx, client.ObjectKeyFromObject(c), &v1alpha1.Component{})
			// The operator's watches try to reconnect and fail (client-go
			// retries refused connections without a log line, so count them).
			g.Eventually(func() (string, error) { return get("http://" + metrics + "/metrics") }).
				WithTimeout(time.Minute).WithPolling(100*time.Millisecond).
				Should(failedRequests, "the operator sent no request while the API server was away")
			g.Expect(session.ExitCode()).To(Equal(-1), "the operator exited while the API server was away")
		})).To(Succeed())
		Expect(downErr).To(MatchError(ContainSubstring("connection refused")), "the API server was not away")
		Expect(downFailures).To(BeEmpty())
		Expect(op.session).To(BeIdenticalTo(session))
		Expect(session.ExitCode()).To(Equal(-1), "the operator exited")

		By("checking that nothing changed across the restart")
		// The first history's watches ended with the server; the second one
		// sees every change from now on, so together they miss none.
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMapList"})
		Expect(env.Client.List(ctx, list, client.InNamespace(ns), client.Limit(1))).To(Succeed())
		after := watchHistorySince(ctx, ns, crashOperator, list.GetResourceVersion())
		Expect(ownedIn(ctx, ns)).To(Equal(before))

		By("making wave 1's Widget ready right after the restart")
		setWidgetReady(ctx, ns, widgetName(1))
		Eventually(func() string { return readyCondition(ctx, c) }).WithTimeout(2*time.Minute).WithPolling(100*time.Millisecond).
			Should(HavePrefix("False/Processing: waiting for wave 2: "), "the Widget's change was not picked up by an event")
		for wave := 2; wave < waves; wave++ {
			setWidgetReady(ctx, ns, widgetName(wave))
		}
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("True/Ready: every object is applied and ready"))

		By("checking that every object is tracked and was written once")
		Expect(op.session).To(BeIdenticalTo(session))
		Expect(session.ExitCode()).To(Equal(-1), "the operator exited")
		Expect(session.Command.Process.Pid).To(Equal(pid))
		final := ownedIn(ctx, ns)
		Expect(final).To(HaveLen(waves * perWave))
		Expect(inventoryKeys(ctx, c)).To(HaveLen(waves * perWave))
		expectInventoryHas(ctx, c, final)
		for key, version := range before {
			Expect(final).To(HaveKeyWithValue(key, HaveField("UID", version.UID)), "%s was created again", key)
			if key.Kind != "Widget" { // the test wrote wave 1's Widget's status
				Expect(final[key].ResourceVersion).To(Equal(version.ResourceVersion), "%s was written again", key)
			}
		}
		eventually(after.objects).Should(Equal((waves - 2) * watched))
		for key, counts := range after.snapshot() {
			Expect(before).NotTo(HaveKey(key), "%s was written after the restart: %v", key, counts)
			Expect(counts).To(Equal(map[watch.EventType]int{watch.Added: 1}), "%s was written more than once", key)
		}
		for wave := range waves {
			Expect(getWidget(ctx, ns, widgetName(wave)).GetGeneration()).To(Equal(int64(1)), "widget %d rewritten", wave)
		}
	})
})

// removeComponent deletes a crash-source component and plays the Widgets'
// controller (removes their finalizer once they are being deleted) until the
// component and its objects are gone.
func removeComponent(ctx context.Context, c *v1alpha1.Component) {
	GinkgoHelper()
	Expect(client.IgnoreNotFound(env.Client.Delete(ctx, c))).To(Succeed())
	Eventually(func(g Gomega) {
		widgets := &unstructured.UnstructuredList{}
		widgets.SetGroupVersionKind(schema.GroupVersionKind{Group: "test.wavekit.dev", Version: "v1", Kind: "WidgetList"})
		g.Expect(env.Client.List(ctx, widgets, client.InNamespace(c.Namespace))).To(Succeed())
		for i := range widgets.Items {
			w := &widgets.Items[i]
			if w.GetDeletionTimestamp() != nil && len(w.GetFinalizers()) > 0 {
				w.SetFinalizers(nil)
				g.Expect(client.IgnoreNotFound(env.Client.Update(ctx, w))).To(Succeed())
			}
		}
		g.Expect(readyCondition(ctx, c)).To(Equal("gone"))
	}).WithTimeout(2 * time.Minute).WithPolling(100 * time.Millisecond).Should(Succeed())
	Expect(ownedIn(ctx, c.Namespace)).To(BeEmpty(), "objects left behind")
}

// freeAddress returns a free local TCP address (for a server of the operator).
func freeAddress() string {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().String()
}

// get returns the body of a GET of url (that answered 200 within 5 seconds).
func get(url string) (string, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(body), err
}
