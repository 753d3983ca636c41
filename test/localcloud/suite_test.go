// Package localcloud_test checks the local cluster's simulated cloud and
// the readiness of the workloads that kstatus takes shortcuts for, on the
// whole local cluster (testcluster.Options.Controllers): kube-controller-manager
// binds the claims to the volumes the provisioner creates, kube-scheduler
// places pods with claims on kwok's Nodes, the load balancer addresses come
// from package localcloud. The reference operator runs as its binary with
// the chart's RBAC (a ServiceAccount token), as users install it; the
// wavekit CLI runs in this process with the administrator's credentials, as
// a cluster's owner runs it. The specs only create, change and delete what a
// user would, and watch.
package localcloud_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/egresstest"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestLocalCloud(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "localcloud")
}

// operatorName is the name of the operator this suite runs.
const operatorName = "localcloud.wavekit.dev"

// timeout bounds what the controllers do within seconds, with room for a
// loaded machine.
const timeout = 2 * time.Minute

var (
	env        *testcluster.Env
	scheme     = runtime.NewScheme()
	kubeconfig string
)

var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	var err error
	env, err = testcluster.Start(testcluster.Options{Scheme: scheme, Controllers: true})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())

	startOperator(context.Background())
})

// The operator's namespace and ServiceAccount, as the chart names them for
// the release "wavekit".
const (
	systemNS   = "wavekit-system"
	operatorSA = "wavekit-component-operator"
)

// startOperator runs the operator binary as the chart's ServiceAccount,
// with the rules vault's shape and egress need granted through
// rbac.extraRules and rbac.extraClusterRules, until
// the suite ends, and waits until it is ready.
func startOperator(ctx context.Context) {
	GinkgoHelper()
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNS}})).To(Succeed())
	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	Expect(operatortest.ApplyRBAC(ctx, env.Client, testcluster.ModuleRoot(), "wavekit", systemNS, map[string]any{
		"rbac": map[string]any{"extraRules": []any{
			map[string]any{"apiGroups": []any{""}, "resources": []any{"services", "persistentvolumeclaims", "secrets"}, "verbs": verbs},
			map[string]any{"apiGroups": []any{"apps"}, "resources": []any{"statefulsets", "deployments"}, "verbs": verbs},
		}, "extraClusterRules": []any{ // egress's webhooks and APIService
			map[string]any{"apiGroups": []any{"admissionregistration.k8s.io"}, "resources": []any{"mutatingwebhookconfigurations", "validatingwebhookconfigurations"}, "verbs": verbs},
			map[string]any{"apiGroups": []any{"apiregistration.k8s.io"}, "resources": []any{"apiservices"}, "verbs": verbs},
		}},
	})).To(Succeed())
	binary, err := operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	cfg, err := operatortest.ServiceAccountConfig(ctx, env.Client, env.Config, systemNS, operatorSA)
	Expect(err).NotTo(HaveOccurred())
	probes, err := operatortest.FreeLocalAddress()
	Expect(err).NotTo(HaveOccurred())
	session, err := operatortest.Operator{Binary: binary, Config: cfg, Dir: GinkgoT().TempDir(), Out: GinkgoWriter,
		Args: []string{"--operator-name", operatorName, "--source", "vault=" + chartDir("vault"), "--source", "egress=" + egresstest.ChartDir(),
			"--health-probe-bind-address", probes}}.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Terminate().Wait(10 * time.Second) })
	eventually(func() (int, error) {
		resp, err := http.Get("http://" + probes + "/readyz")
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}).Should(Equal(http.StatusOK))
}

func chartDir(name string) string {
	return filepath.Join(testcluster.ModuleRoot(), "test", "localcloud", "testdata", name)
}

// newNamespace creates a namespace for one spec.
func newNamespace(ctx context.Context, name string) string {
	GinkgoHelper()
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	return name
}

func eventually(f any) AsyncAssertion {
	return Eventually(f).WithTimeout(timeout).WithPolling(100 * time.Millisecond)
}
