// Package helm_test installs Helm charts through the reference operator on a
// real API server and checks that they install, upgrade and delete as Helm
// would: hook lifetimes, upgrade-only hooks, .Release.Service, and taking
// over a release that helm install made. The control plane is a whole
// cluster (testcluster.Options.Controllers): the Job controller runs the hook
// Jobs, the Deployment controller rolls Deployments out, kwok moves the pods
// on its fake Nodes, the garbage collector removes what a deletion leaves;
// the suite only watches (observer_test.go). The operator and the wavekit
// CLI run in this process with the test's administrator credentials, since
// what is checked here is Helm's semantics, not RBAC (test/e2e and
// test/security run the operator as the chart's ServiceAccount).
package helm_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/format"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestHelm(t *testing.T) {
	RegisterFailHandler(Fail)
	format.TruncatedDiff = false
	RunSpecs(t, "helm")
}

// operatorName is the name of the operator this suite runs.
const operatorName = "helm.wavekit.dev"

var (
	env    *testcluster.Env
	scheme = runtime.NewScheme()
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

	ctx, cancel := context.WithCancel(context.Background())
	DeferCleanup(cancel)
	mgr, err := ctrl.NewManager(env.Config, componenttest.ManagerOptions(scheme))
	Expect(err).NotTo(HaveOccurred())
	_, err = operator.Setup(mgr, operator.Options{Name: operatorName, Sources: map[string]string{
		"admission": chartDir("admission"), "tested": chartDir("tested"),
	}})
	Expect(err).NotTo(HaveOccurred())
	componenttest.RunManager(ctx, mgr)
})

func chartDir(name string) string {
	return filepath.Join(testcluster.ModuleRoot(), "test", "helm", "testdata", name)
}

// newNamespace creates a namespace for one spec.
func newNamespace(ctx context.Context, name string) string {
	GinkgoHelper()
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	return name
}

func eventually(f any) AsyncAssertion {
	return Eventually(f).WithTimeout(60 * time.Second).WithPolling(100 * time.Millisecond)
}
