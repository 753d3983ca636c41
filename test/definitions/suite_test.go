// Package definitions_test runs the reference operator, as its own process
// with its chart's RBAC (definitions.enabled), against a local cluster with
// its controllers, a local Helm repository serving a chart whose
// values.schema.json becomes a kind, and kubectl built from the module.
package definitions_test

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestDefinitions(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "definitions")
}

const (
	operatorNamespace = "wavekit-system"
	operatorAccount   = "wavekit-component-operator"
	group             = "platform.example.com"
)

var (
	ctx      = context.Background()
	env      *testcluster.Env
	repo     *localrepo.Repository
	binary   string
	kubectl  string
	operator *gexec.Session
	// operatorConfig reaches the cluster as the chart's ServiceAccount.
	operatorConfig *rest.Config
	kubeconfig     string
	// suiteDir outlives every spec: the operator's files, which a
	// restarted operator finds again.
	suiteDir string
	// page is the URL of the operator's status page.
	page string
)

var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	var err error
	env, err = testcluster.Start(testcluster.Options{Scheme: scheme, Controllers: true})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })

	repo, err = localrepo.NewRepository()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(repo.Close)
	Expect(repo.Add(append(stackCharts(), databaseChart("1.0.0", true))...)).To(Succeed())

	suiteDir = GinkgoT().TempDir()
	root, dir := testcluster.ModuleRoot(), suiteDir
	binary, err = operatortest.BuildOperator(root, dir)
	Expect(err).NotTo(HaveOccurred())
	kubectl, err = operatortest.Kubectl(root, dir)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig = filepath.Join(dir, "admin.kubeconfig")
	Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())

	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}})).To(Succeed())
	// As the chart installs it with definitions on: the right to write CRDs
	// and ClusterRoles, every right on platform.example.com, and what the
	// chart deploys (Deployments, ConfigMaps) granted as a user would; and
	// the lockdown's right to impersonate ServiceAccounts, which the
	// operator uses only for what names one (it runs without
	// --default-service-account).
	Expect(operatortest.ApplyRBAC(ctx, env.Client, root, "wavekit", operatorNamespace, map[string]any{
		"web":                   map[string]any{"enabled": true},
		"definitions":           map[string]any{"enabled": true, "groups": []any{group}},
		"defaultServiceAccount": "deployer",
		"rbac": map[string]any{"extraRules": []any{map[string]any{
			"apiGroups": []any{"", "apps"}, "resources": []any{"configmaps", "deployments"},
			"verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"},
		}}},
	})).To(Succeed())
	operatorConfig, err = operatortest.ServiceAccountConfig(ctx, env.Client, env.Config, operatorNamespace, operatorAccount)
	Expect(err).NotTo(HaveOccurred())
	addr, err := operatortest.FreeLocalAddress()
	Expect(err).NotTo(HaveOccurred())
	page = "http://" + addr
	operator = startOperator()
	DeferCleanup(func() { stopOperator(operator) })
})

// startOperator runs the operator binary with definitions on, as the
// chart's ServiceAccount; the suite stops the one running when it ends.
func startOperator() *gexec.Session {
	GinkgoHelper()
	session, err := operatortest.Operator{Binary: binary, Config: operatorConfig, Dir: suiteDir, Out: GinkgoWriter,
		Args: []string{"--definitions", "--definition-groups", group, "--source-cache-dir", filepath.Join(suiteDir, "sources"),
			"--source", "web=" + filepath.Join(testcluster.ModuleRoot(), "examples", "templates", "web"),
			"--web-bind-address", strings.TrimPrefix(page, "http://")}}.Start()
	Expect(err).NotTo(HaveOccurred())
	return session
}

// stopOperator stops the operator, and has it print its goroutines when it
// does not stop within 20 s.
func stopOperator(session *gexec.Session) {
	session.Terminate()
	select {
	case <-session.Exited:
	case <-time.After(20 * time.Second):
		session.Signal(syscall.SIGQUIT)
		session.Wait(5 * time.Second)
		Fail("the operator did not stop within 20 s")
	}
}
