// Package security_test proves wavekit's security claims as attacks that
// fail, against a whole local cluster (kube-apiserver, the controllers, the
// scheduler and kwok's simulated Nodes, so that the Deployments a tenant
// installs roll out for real): the reference operator runs in process as its
// own ServiceAccount (a token from the TokenRequest API, bound to a
// ClusterRole with only what the lockdown needs), with
// --default-service-account on, and tenants have only namespaced Roles.
package security_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

const (
	operatorName = "sec.wavekit.dev"
	// deployer is the default service account of the lockdown.
	deployer = "deployer"
)

var (
	env *testcluster.Env
	ctx = context.Background()
)

func TestSecurity(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "security")
}

var _ = BeforeSuite(func() {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	var err error
	env, err = testcluster.Start(testcluster.Options{Scheme: scheme, Controllers: true})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })

	cfg := operatorIdentity()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	Expect(err).NotTo(HaveOccurred())
	_, err = operator.Setup(mgr, operator.Options{
		Name: operatorName,
		Sources: map[string]string{
			"app":       filepath.Join(testcluster.ModuleRoot(), "test", "security", "testdata", "app"),
			"elsewhere": filepath.Join(testcluster.ModuleRoot(), "test", "security", "testdata", "elsewhere"),
		},
		Reconciler: component.ReconcilerOptions{
			DefaultServiceAccount: deployer,
			// One worker, as the operator ran when one bad target stalled the others.
			MaxConcurrentReconciles: 1,
			TargetTimeout:           3 * time.Second,
			RetryInterval:           2 * time.Second,
		},
	})
	Expect(err).NotTo(HaveOccurred())
	mgrCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(mgr.Start(mgrCtx)).To(Succeed())
	}()
	DeferCleanup(func() { cancel(); Eventually(done).WithTimeout(30 * time.Second).Should(BeClosed()) })
})

// operatorIdentity creates the operator's ServiceAccount with the rights the
// lockdown needs (its Components, events, kubeconfig Secrets, impersonating
// service accounts) and returns a config that uses a token of it.
func operatorIdentity() *rest.Config {
	createNamespace("wavekit-system")
	Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "wavekit-system", Name: "operator"}})).To(Succeed())
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{"wavekit.dev"}, Resources: []string{"components"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{"wavekit.dev"}, Resources: []string{"components/status", "components/finalizers"}, Verbs: []string{"get", "update", "patch"}},
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		// Kubeconfig Secrets, and the metadata watch of what valuesFrom reads
		// (its content is read as the Component's service account), as the
		// chart grants with rbac.readSources.
		{APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"impersonate"}},
	}
	Expect(env.Client.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-operator"}, Rules: rules})).To(Succeed())
	Expect(env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "wavekit-operator"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "wavekit-operator"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "wavekit-system", Name: "operator"}},
	})).To(Succeed())
	clientset, err := kubernetes.NewForConfig(env.Config)
	Expect(err).NotTo(HaveOccurred())
	expiry := int64(3600)
	token, err := clientset.CoreV1().ServiceAccounts("wavekit-system").CreateToken(ctx, "operator",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return &rest.Config{Host: env.Config.Host, BearerToken: token.Status.Token, TLSClientConfig: rest.TLSClientConfig{CAData: env.Config.CAData}}
}
