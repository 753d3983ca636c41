// Package receivers_test sends webhooks to the reference operator's
// receiver, as GitHub, GitLab, a registry and a generic HMAC sender send
// them, and checks what they change. The operator runs as its own process,
// as the chart's ServiceAccount with the chart's RBAC (receiver.enabled),
// with --receiver-bind-address, against a bare API server (kube-apiserver
// and etcd: the Components apply ConfigMaps, which need no controller).
package receivers_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

const (
	operatorName = "rcv.wavekit.dev"
	systemNS     = "wavekit-system"
	operatorSA   = "wavekit-component-operator"
	teamA, teamB = "team-a", "team-b"
	// requestKey is the annotation a verified request sets.
	requestKey = operatorName + "/reconcile-requested-at"
	timeout    = time.Minute
)

var (
	ctx      = context.Background()
	env      *testcluster.Env
	operator *gexec.Session
	// base is the receiver's URL.
	base string
)

func TestReceivers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "receivers")
}

var _ = BeforeSuite(func() {
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	var err error
	env, err = testcluster.Start(testcluster.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	for _, ns := range []string{systemNS, teamA, teamB} {
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}
	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	Expect(operatortest.ApplyRBAC(ctx, env.Client, testcluster.ModuleRoot(), "wavekit", systemNS, map[string]any{
		"receiver": map[string]any{"enabled": true},
		"rbac":     map[string]any{"extraRules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": verbs}}},
	})).To(Succeed())
	addr, err := operatortest.FreeLocalAddress()
	Expect(err).NotTo(HaveOccurred())
	base = "http://" + addr
	binary, err := operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	cfg, err := operatortest.ServiceAccountConfig(ctx, env.Client, env.Config, systemNS, operatorSA)
	Expect(err).NotTo(HaveOccurred())
	operator, err = operatortest.Operator{Binary: binary, Config: cfg, Dir: GinkgoT().TempDir(), Out: GinkgoWriter,
		Args: []string{"--operator-name", operatorName, "--receiver-bind-address", addr,
			"--source", "site=" + filepath.Join(testcluster.ModuleRoot(), "test", "receivers", "testdata", "site")}}.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { operator.Terminate().Wait(10 * time.Second) })
})
