package e2e_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The reference operator runs as its own process (the binary users deploy)
// against the test API server, with a Helm chart as its source.
var _ = Describe("the component-operator binary", Ordered, func() {
	var (
		env    *testcluster.Env
		binary string
		ctx    = context.Background()
	)

	BeforeAll(func() {
		env = startControlPlane()
		binary = buildOperatorBinary()
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-system"}})).To(Succeed())
		// Installed as the chart installs it: its ServiceAccount and RBAC, with
		// the kinds the web source deploys granted as a user would, by values.
		// Leader election runs outside a pod here, so it needs its namespace named.
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"leaderElection": true, "rbac": map[string]any{
			"extraRules": webSourceRules(),
		}})
		startOperatorBinary(binary, serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator"),
			"--leader-elect", "--leader-election-namespace", "wavekit-system")
	})

	It("reports ready once its informers have synced, and not while it may not list Components", func() {
		// Port 0: the operator picks a free port and logs it, so that no other
		// process can take it between a test's choice and the operator's bind.
		ready := probeAddress(startOperatorBinary(binary, serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator"),
			"--leader-elect", "--leader-election-namespace", "wavekit-system", "--health-probe-bind-address", "127.0.0.1:0"))
		Eventually(func() (int, error) { code, _, err := getReadyz(ready); return code, err }).
			WithTimeout(30*time.Second).Should(Equal(http.StatusOK), "a standby of the chart's identity")

		blind := probeAddress(startOperatorBinary(binary, serviceAccountConfig(ctx, env, "wavekit-system", "no-rights"),
			"--health-probe-bind-address", "127.0.0.1:0"))
		Consistently(func() string { _, body, _ := getReadyz(blind); return body }).
			WithTimeout(3 * time.Second).Should(ContainSubstring("[-]informers failed"))
		code, _, err := getReadyz(blind)
		Expect(err).NotTo(HaveOccurred())
		Expect(code).NotTo(Equal(http.StatusOK))
	})

	It("applies a Component of its source until Ready and deletes it again", func() {
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "e2e"}})).To(Succeed())
		c := &v1alpha1.Component{
			ObjectMeta: metav1.ObjectMeta{Namespace: "e2e", Name: "site"},
			Spec:       v1alpha1.ComponentSpec{Source: "web", Values: &apiextensionsv1.JSON{Raw: []byte(`{"greeting":"hi"}`)}},
		}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60 * time.Second).Should(Equal("True/Ready"))

		var cm corev1.ConfigMap
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: "e2e", Name: "site-config"}, &cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("greeting", "hi"))
		Expect(cm.Labels).To(HaveKey("e2e.wavekit.dev/owner-id"))

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60 * time.Second).Should(Equal("gone"))
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: "e2e", Name: "site-config"}, &cm)
		Expect(apierrors.IsNotFound(err)).To(BeTrue())
	})

	It("creates the namespace a Component needs with the chart's RBAC, and keeps it when the Component goes", func() {
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "e2e-home"}})).To(Succeed())
		c := &v1alpha1.Component{
			ObjectMeta: metav1.ObjectMeta{Namespace: "e2e-home", Name: "away"},
			Spec:       v1alpha1.ComponentSpec{Source: "web", Namespace: "e2e-made", Values: &apiextensionsv1.JSON{Raw: []byte(`{"greeting":"hi"}`)}},
		}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60 * time.Second).Should(Equal("True/Ready"))
		var ns corev1.Namespace
		Expect(env.Client.Get(ctx, client.ObjectKey{Name: "e2e-made"}, &ns)).To(Succeed())
		Expect(ns.Labels).To(HaveKey("e2e.wavekit.dev/owner-id"))

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60 * time.Second).Should(Equal("gone"))
		Expect(env.Client.Get(ctx, client.ObjectKey{Name: "e2e-made"}, &ns)).To(Succeed())
		Expect(ns.DeletionTimestamp).To(BeNil(), "a namespace the operator created is never deleted with the Component")
		Expect(ns.Labels).NotTo(HaveKey("e2e.wavekit.dev/owner-id"), "it is released")
	})

	It("leaves alone a Component whose source it does not serve", func() {
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: "e2e", Name: "elsewhere"}, Spec: v1alpha1.ComponentSpec{Source: "not-mine"}}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		Consistently(func() []string {
			var got v1alpha1.Component
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
			return append(got.Finalizers, string(got.Status.State))
		}).WithTimeout(3 * time.Second).Should(Equal([]string{""}))
	})
})

func readyReason(ctx context.Context, env *testcluster.Env, c *v1alpha1.Component) string {
	var got v1alpha1.Component
	err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got)
	if apierrors.IsNotFound(err) {
		return "gone"
	}
	Expect(err).NotTo(HaveOccurred())
	cond := got.Status.ReadyCondition()
	if cond == nil {
		return "none"
	}
	return string(cond.Status) + "/" + cond.Reason
}

// edit reads obj afresh, applies change and updates it, again on a conflict:
// the operator and the controllers write the status of the objects a spec
// edits, and each of their writes moves the resourceVersion a plain
// read-then-update holds.
func edit(ctx context.Context, env *testcluster.Env, obj client.Object, change func()) {
	GinkgoHelper()
	key := client.ObjectKeyFromObject(obj)
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, key, obj); err != nil {
			return err
		}
		change()
		return env.Client.Update(ctx, obj)
	})).To(Succeed())
}

// getReadyz returns the status code and body of GET /readyz?verbose on the
// operator's probe address.
func getReadyz(address string) (int, string, error) {
	resp, err := http.Get("http://" + address + "/readyz?verbose")
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// probeAddress waits until the operator of session logs where its health
// probe server listens, and returns that address.
func probeAddress(session *gexec.Session) string {
	GinkgoHelper()
	logged := regexp.MustCompile(`"name":"health probe","addr":"([^"]+)"`)
	var address string
	Eventually(func() bool {
		m := logged.FindSubmatch(session.Err.Contents())
		if m != nil {
			address = string(m[1])
		}
		return m != nil
	}).WithTimeout(30*time.Second).Should(BeTrue(), "the operator logged no health probe address")
	return address
}
