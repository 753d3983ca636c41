package egresstest

import (
	"bufio"
	"bytes"
	"context"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // a package of Ginkgo helpers
	. "github.com/onsi/gomega"    //nolint:revive
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// expectFailOpen creates a Secret and a Pod, which the mutating webhook
// (Ignore) matches, until they were created although the webhook was called
// and failed: the API server's count of the webhook's failures grew.
func expectFailOpen(ctx context.Context, cs kubernetes.Interface, ns string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		before := failOpenCount(ctx, g, cs)
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{GenerateName: "admitted-"}, StringData: map[string]string{"token": "not-a-real-token"}}
		_, err := cs.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "admitted-"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "example.invalid/app:1"}}}}
		_, err = cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(failOpenCount(ctx, g, cs)).To(BeNumerically(">=", before+2), "the mutating webhook was not called yet")
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// failOpenCount reads from the API server's metrics how often the mutating
// webhook failed and the request went on.
func failOpenCount(ctx context.Context, g Gomega, cs kubernetes.Interface) float64 {
	data, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	series := `apiserver_admission_webhook_fail_open_count{name="` + MutatingWebhook + `",type="admit"} `
	lines := bufio.NewScanner(bytes.NewReader(data))
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	for lines.Scan() {
		if value, found := strings.CutPrefix(lines.Text(), series); found {
			count, err := strconv.ParseFloat(value, 64)
			g.Expect(err).NotTo(HaveOccurred())
			return count
		}
	}
	return 0
}

// ExpectFailClosed creates a ConfigMap that the validating webhook (Fail)
// of the chart installed in ns matches until the API server refuses it with
// the gate's reason.
func ExpectFailClosed(ctx context.Context, cs kubernetes.Interface, ns string) {
	GinkgoHelper()
	checked := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "checked", Labels: map[string]string{CheckLabel: "true"}}}
	Eventually(func() error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, checked, metav1.CreateOptions{})
		return err
	}).WithContext(ctx).WithTimeout(timeout).Should(MatchError(And(
		ContainSubstring(`failed calling webhook "`+ValidatingWebhook+`"`),
		ContainSubstring(WebhookRefusal(ns)))))
}

// expectAPIServiceUnavailable waits until the chart's APIService is
// Available=False with the gate's reason.
func expectAPIServiceUnavailable(ctx context.Context, cfg *rest.Config, ns string) {
	GinkgoHelper()
	c, err := client.New(cfg, client.Options{})
	Expect(err).NotTo(HaveOccurred())
	apiService := &unstructured.Unstructured{}
	apiService.SetAPIVersion("apiregistration.k8s.io/v1")
	apiService.SetKind("APIService")
	Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKey{Name: APIServiceName(ns)}, apiService)).To(Succeed())
		conditions, _, _ := unstructured.NestedSlice(apiService.Object, "status", "conditions")
		g.Expect(conditions).To(ContainElement(And(
			HaveKeyWithValue("type", "Available"), HaveKeyWithValue("status", "False"),
			HaveKeyWithValue("message", ContainSubstring(APIServiceRefusal(ns))))))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// expectNoLogs reads the logs of the chart's pod, which the API server
// would fetch from the kubelet of its Node: kwok runs none, and the gate
// says so.
func expectNoLogs(ctx context.Context, cs kubernetes.Interface, ns string) {
	GinkgoHelper()
	var node string
	Eventually(func(g Gomega) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=egress-server"})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(pods.Items).NotTo(BeEmpty())
		g.Expect(pods.Items[0].Spec.NodeName).NotTo(BeEmpty())
		node = pods.Items[0].Spec.NodeName
		body, err := cs.CoreV1().Pods(ns).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		g.Expect(err).To(HaveOccurred())
		g.Expect(string(body)).To(ContainSubstring("no kubelet runs on Node " + node + " in the local cluster: kwok simulates it"))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}
