// Package localcloud_test checks the local cluster's simulated cloud and
// the readiness of the workloads that kstatus takes shortcuts for, on the
// whole local cluster (testenv.Options.Controllers): kube-controller-manager
// binds the claims to the volumes the provisioner creates, kube-scheduler
// places pods with claims on kwok's Nodes, the load balancer addresses come
// from package localcloud. The reference operator and the wavekit CLI run in
// this process with the administrator's credentials; the specs only create,
// change and delete what a user would, and watch.
package localcloud_test

import (
	"context"
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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/componenttest"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testenv"
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
	env        *testenv.Env
	scheme     = runtime.NewScheme()
	kubeconfig string
)

var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	var err error
	env, err = testenv.Start(testenv.Options{Scheme: scheme, Controllers: true})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testenv.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())

	ctx, cancel := context.WithCancel(context.Background())
	DeferCleanup(cancel)
	mgr, err := ctrl.NewManager(env.Config, componenttest.ManagerOptions(scheme))
	Expect(err).NotTo(HaveOccurred())
	_, err = operator.Setup(mgr, operator.Options{Name: operatorName, Sources: map[string]string{"vault": chartDir("vault")}})
	Expect(err).NotTo(HaveOccurred())
	componenttest.RunManager(ctx, mgr)
})

func chartDir(name string) string {
	return filepath.Join(testenv.ModuleRoot(), "test", "localcloud", "testdata", name)
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
