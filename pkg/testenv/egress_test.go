package testenv_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/testenv"
	"github.com/wavekit-dev/wavekit/pkg/testenv/egress"
)

// timeout bounds what the API server does within seconds.
const timeout = time.Minute

// checked are the ConfigMaps the specs' webhooks match.
var checked = map[string]string{"egress.wavekit.dev/check": "true"}

// On an API server alone, as on the whole cluster: the Services' addresses
// come from ServiceRange, and kube-apiserver calls webhooks through the
// egress gate of this process, which refuses a Service's address with the
// Service's name and passes 127.0.0.1 through.
var _ = Describe("the egress gate of an API server alone", Ordered, func() {
	var (
		cfg *rest.Config
		c   client.Client
	)
	ctx := context.Background()

	BeforeAll(func() {
		env := &testenv.Environment{APIServerOnly: true}
		var err error
		cfg, err = env.Start()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
		Expect(env.EgressSocket()).To(BeAnExistingFile())
		c, err = client.New(cfg, client.Options{})
		Expect(err).NotTo(HaveOccurred())
	})

	It("gives Services addresses of ServiceRange", func() {
		var kubernetes corev1.Service // the API server creates it after its start
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "kubernetes"}, &kubernetes)).To(Succeed())
		}).WithTimeout(timeout).Should(Succeed())
		Expect(kubernetes.Spec.ClusterIP).To(Equal("198.18.0.1"))
		Expect(inRange(createService(ctx, c, "ranged").Spec.ClusterIP, testenv.ServiceRange)).To(BeTrue())
	})

	It("refuses a Fail webhook's call to a Service with the Service's name", func() {
		createService(ctx, c, "hooks")
		hook := webhook("service.egress.wavekit.dev", admissionregistrationv1.WebhookClientConfig{
			Service: &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "hooks", Path: ptr.To("/validate")},
		})
		Expect(c.Create(ctx, hook)).To(Succeed())
		DeferCleanup(func() { Expect(c.Delete(ctx, hook)).To(Succeed()) })

		Eventually(func() error { return c.Create(ctx, checkedConfigMap()) }).WithTimeout(timeout).Should(MatchError(And(
			ContainSubstring(`failed calling webhook "service.egress.wavekit.dev"`),
			ContainSubstring("code 502: 502 no container serves Service default/hooks in the local cluster"))))
	})

	It("passes a webhook given by URL on 127.0.0.1 through to a server of this process", func() {
		server := denyingWebhookServer("denied by the test's own webhook")
		hook := webhook("url.egress.wavekit.dev", admissionregistrationv1.WebhookClientConfig{
			URL:      ptr.To(server.URL + "/validate"),
			CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw}),
		})
		Expect(c.Create(ctx, hook)).To(Succeed())
		DeferCleanup(func() { Expect(c.Delete(ctx, hook)).To(Succeed()) })

		Eventually(func() error { return c.Create(ctx, checkedConfigMap()) }).WithTimeout(timeout).Should(MatchError(
			ContainSubstring(`admission webhook "url.egress.wavekit.dev" denied the request: denied by the test's own webhook`)))
	})

	It("names the pods and Nodes of the cluster by their addresses", func() {
		owners, err := egress.WatchOwners(cfg)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(owners.Stop)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok-node-9"}}
		Expect(c.Create(ctx, node)).To(Succeed())
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "kwok-node-9"}, {Type: corev1.NodeInternalIP, Address: "198.19.255.9"}}
		Expect(c.Status().Update(ctx, node)).To(Succeed())
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-0"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "example.invalid/web:1"}}}}
		Expect(c.Create(ctx, pod)).To(Succeed())
		pod.Status.PodIPs = []corev1.PodIP{{IP: "198.19.0.9"}}
		Expect(c.Status().Update(ctx, pod)).To(Succeed())

		reason := func(target string) string { _, r := egress.Decide(target, owners); return r }
		Eventually(reason).WithArguments("198.19.0.9:8443").WithTimeout(timeout).
			Should(Equal("no container runs for pod default/web-0 in the local cluster"))
		Eventually(reason).WithArguments("kwok-node-9:10250").WithTimeout(timeout).
			Should(Equal("no kubelet runs on Node kwok-node-9 in the local cluster: kwok simulates it"))
		Expect(reason("198.19.255.9:10250")).To(Equal("no kubelet runs on Node kwok-node-9 in the local cluster: kwok simulates it"))
		Eventually(reason).WithArguments("198.18.0.1:443").WithTimeout(timeout).Should(Equal("no container serves Service default/kubernetes in the local cluster"))
	})
})

// createService creates a Service of that name in default.
func createService(ctx context.Context, c client.Client, name string) *corev1.Service {
	GinkgoHelper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443}}}}
	Expect(c.Create(ctx, svc)).To(Succeed())
	return svc
}

// webhook is a validating webhook with failurePolicy Fail on the creation
// of the ConfigMaps labelled checked.
func webhook(name string, to admissionregistrationv1.WebhookClientConfig) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    name,
			ClientConfig:            to,
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: checked},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
		}},
	}
}

func checkedConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "checked-", Labels: checked}}
}

// denyingWebhookServer serves, on 127.0.0.1 over TLS until the spec ends, a
// validating webhook that denies every request with message.
func denyingWebhookServer(message string) *httptest.Server {
	GinkgoHelper()
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: false, Result: &metav1.Status{Message: message}}
		review.Request = nil
		_ = json.NewEncoder(w).Encode(review)
	}))
	DeferCleanup(server.Close)
	return server
}

func inRange(ip, cidr string) bool {
	GinkgoHelper()
	prefix := netip.MustParsePrefix(cidr)
	addr, err := netip.ParseAddr(ip)
	Expect(err).NotTo(HaveOccurred())
	return prefix.Contains(addr)
}
