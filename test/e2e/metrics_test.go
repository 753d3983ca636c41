package e2e_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The metrics endpoint of the operator, run as the chart's ServiceAccount
// with the chart's RBAC: HTTPS, and only for tokens that may get /metrics.
var _ = Describe("the operator's metrics endpoint", Ordered, func() {
	var (
		env                   *testcluster.Env
		ctx                   = context.Background()
		binary, secure, plain string // binary; base URLs of the two endpoints
	)

	BeforeAll(func() {
		env = startControlPlane()
		binary = buildOperatorBinary()
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-system"}})).To(Succeed())
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}})).To(Succeed())
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"metrics": map[string]any{
			"readers": []any{map[string]any{"kind": "ServiceAccount", "name": "prometheus", "namespace": "monitoring"}},
		}})
		operator := serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator")
		secure = "https://" + freeLocalAddress()
		startOperatorBinary(binary, operator, "--metrics-bind-address", strings.TrimPrefix(secure, "https://"))
		plain = "http://" + freeLocalAddress()
		startOperatorBinary(binary, operator, "--metrics-bind-address", strings.TrimPrefix(plain, "http://"), "--metrics-secure=false")
	})

	It("refuses a request without a token", func() {
		Eventually(func() (int, error) { return getMetrics(secure, "") }).WithTimeout(60 * time.Second).Should(Equal(http.StatusUnauthorized))
		Expect(getMetrics(strings.Replace(secure, "https:", "http:", 1), "")).To(Equal(http.StatusBadRequest), "no plain HTTP on the secure port")
	})

	It("refuses a token the API server does not know", func() {
		// The TokenReview says why it failed, which controller-runtime's
		// filter answers with 500 rather than 401; either way nothing is served.
		code, body, err := fetchMetrics(secure, "not-a-token")
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(BeElementOf(http.StatusUnauthorized, http.StatusInternalServerError))
		Expect(body).NotTo(ContainSubstring("controller_runtime_"))
	})

	It("refuses a valid token that may not get /metrics", func() {
		nosy := serviceAccountConfig(ctx, env, "monitoring", "nosy")
		Eventually(func() (int, error) { return getMetrics(secure, nosy.BearerToken) }).WithTimeout(60 * time.Second).Should(Equal(http.StatusForbidden))
	})

	It("answers a token bound to the chart's metrics-reader ClusterRole", func() {
		prometheus := serviceAccountConfig(ctx, env, "monitoring", "prometheus")
		Eventually(func() (int, error) { return getMetrics(secure, prometheus.BearerToken) }).WithTimeout(60 * time.Second).Should(Equal(http.StatusOK))
		Expect(readMetrics(secure, prometheus.BearerToken)).To(ContainSubstring("controller_runtime_"))
	})

	It("serves plain HTTP to anyone with --metrics-secure=false", func() {
		Eventually(func() (int, error) { return getMetrics(plain, "") }).WithTimeout(60 * time.Second).Should(Equal(http.StatusOK))
	})
})

// startControlPlane starts a test API server for one container, with the
// CRDs of extraCRDDirs too, and stops it after.
func startControlPlane(extraCRDDirs ...string) *testcluster.Env {
	GinkgoHelper()
	return startControlPlaneWith(testcluster.Options{ExtraCRDDirs: extraCRDDirs})
}

// startControlPlaneWith starts a test control plane of opts (with
// Controllers, a whole cluster) for one container, with the client's scheme
// set, and stops it after.
func startControlPlaneWith(opts testcluster.Options) *testcluster.Env {
	GinkgoHelper()
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	opts.Scheme = scheme
	env, err := testcluster.Start(opts)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	return env
}

// buildOperatorBinary builds cmd/component-operator into a directory of the
// current container.
func buildOperatorBinary() string {
	GinkgoHelper()
	binary, err := operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	return binary
}

// startOperatorBinary runs the operator as cfg's user, serving the web
// source, until the container ends; args come after the defaults and win.
func startOperatorBinary(binary string, cfg *rest.Config, args ...string) *gexec.Session {
	GinkgoHelper()
	session, err := operatortest.Operator{Binary: binary, Config: cfg, Dir: GinkgoT().TempDir(), Out: GinkgoWriter,
		Args: append([]string{"--operator-name", "e2e.wavekit.dev",
			"--source", "web=" + filepath.Join(testcluster.ModuleRoot(), "test", "e2e", "testdata", "web")}, args...)}.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Terminate().Wait(10 * time.Second) })
	return session
}

// webSourceRules are the chart's rbac.extraRules for what testdata/web
// deploys, granted as a user would grant them.
func webSourceRules() []any {
	return []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps", "services"},
		"verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"}}}
}

// applyChartRBAC renders config/chart with values and creates its
// ServiceAccount and RBAC objects (nothing else: the test runs the binary
// itself).
func applyChartRBAC(ctx context.Context, env *testcluster.Env, release, namespace string, values map[string]any) {
	GinkgoHelper()
	Expect(operatortest.ApplyRBAC(ctx, env.Client, testcluster.ModuleRoot(), release, namespace, values)).To(Succeed())
}

// serviceAccountConfig creates the ServiceAccount if it does not exist yet
// and returns a config that reaches the API server with a token of it from
// the TokenRequest API (and no client certificate).
func serviceAccountConfig(ctx context.Context, env *testcluster.Env, namespace, name string) *rest.Config {
	GinkgoHelper()
	cfg, err := operatortest.ServiceAccountConfig(ctx, env.Client, env.Config, namespace, name)
	Expect(err).NotTo(HaveOccurred())
	Expect(cfg.BearerToken).NotTo(BeEmpty())
	return cfg
}

func ptrTo[T any](v T) *T { return &v }

// freeLocalAddress returns a loopback address with a port nobody listens on.
func freeLocalAddress() string {
	GinkgoHelper()
	addr, err := operatortest.FreeLocalAddress()
	Expect(err).NotTo(HaveOccurred())
	return addr
}

// metricsClient trusts the operator's self-signed certificate: the test is
// about who may read, not about the certificate.
var metricsClient = &http.Client{
	Timeout:   10 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // self-signed test endpoint
}

// getMetrics returns the status code of GET base/metrics with token (none
// when empty).
func getMetrics(base, token string) (int, error) {
	code, _, err := fetchMetrics(base, token)
	return code, err
}

// readMetrics returns the body of a successful GET base/metrics.
func readMetrics(base, token string) string {
	GinkgoHelper()
	code, body, err := fetchMetrics(base, token)
	Expect(err).NotTo(HaveOccurred())
	Expect(code).To(Equal(http.StatusOK))
	return body
}

func fetchMetrics(base, token string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := metricsClient.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("GET %s/metrics: %w", base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}
