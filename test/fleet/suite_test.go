// Package fleet_test runs the reference operator's ComponentSet controller,
// as the operator binary with the chart's RBAC, against a local cluster with
// controllers (the hub, where the sets, Components and cluster Secrets
// live, with a stand-in of Cluster API's Cluster CRD) and three bare API
// servers (the clusters the objects go to).
package fleet_test

import (
	"context"
	"os/exec"
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
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestFleet(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fleet")
}

const (
	operatorNamespace = "wavekit-system"
	operatorAccount   = "wavekit-component-operator"
	// clusterLabel marks a Secret as a cluster (default operator name).
	clusterLabel = "wavekit.dev/cluster"
)

var (
	ctx      = context.Background()
	hub      *testcluster.Env
	clusters []*testcluster.Env
	// operatorConfig reaches the hub as the operator's ServiceAccount.
	operatorConfig *rest.Config
)

var _ = BeforeSuite(func() {
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	started := make(chan error, 1)
	go func() {
		var err error
		clusters, err = testcluster.StartClusters(3)
		started <- err
	}()
	var err error
	hub, err = testcluster.Start(testcluster.Options{Scheme: scheme, Controllers: true,
		ExtraCRDDirs: []string{filepath.Join(testcluster.ModuleRoot(), "test", "fleet", "testdata", "crds")}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(hub.Stop()).To(Succeed()) })
	Expect(<-started).To(Succeed())
	DeferCleanup(func() {
		for _, c := range clusters {
			Expect(c.Stop()).To(Succeed())
		}
	})

	binary, err := operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	Expect(hub.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}})).To(Succeed())
	// As the chart installs it: the objects go to the clusters with their
	// kubeconfigs' rights, so nothing beyond the chart's defaults is granted.
	// The members of sets with spec.inputs and no placement go to the hub:
	// their ConfigMaps are granted as a platform team grants what its
	// sources deploy (rbac.extraRules).
	Expect(operatortest.ApplyRBAC(ctx, hub.Client, testcluster.ModuleRoot(), "wavekit", operatorNamespace, map[string]any{
		"rbac": map[string]any{"extraRules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"},
			"verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"}}}}})).To(Succeed())
	operatorConfig, err = operatortest.ServiceAccountConfig(ctx, hub.Client, hub.Config, operatorNamespace, operatorAccount)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(operatorConfig, kubeconfig)).To(Succeed())
	cmd := exec.Command(binary, "--kubeconfig", kubeconfig,
		"--source", "site="+filepath.Join(testcluster.ModuleRoot(), "test", "fleet", "testdata", "site"),
		"--source", "tenant="+filepath.Join(testcluster.ModuleRoot(), "test", "fleet", "testdata", "tenant"),
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0")
	session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Terminate().Wait(10 * time.Second) })
})
