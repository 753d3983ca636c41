// Package fleet_test runs the reference operator's ComponentSet controller,
// as the operator binary with the chart's RBAC, against a local cluster with
// controllers (the hub, where the sets, Components and cluster Secrets
// live, with a stand-in of Cluster API's Cluster CRD) and three bare API
// servers (the clusters the objects go to).
package fleet_test

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/internal/testing/fleettest"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestFleet(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fleet")
}

// clusterLabel marks a Secret as a cluster (default operator name).
const clusterLabel = "wavekit.dev/cluster"

var (
	ctx      = context.Background()
	hub      *fleettest.Hub
	clusters []*testcluster.Env
	// operatorConfig reaches the hub as the operator's ServiceAccount.
	operatorConfig *rest.Config
)

var _ = BeforeSuite(func() {
	hub, clusters = fleettest.Start(testcluster.Options{Controllers: true,
		ExtraCRDDirs: []string{testdata("crds")}}, 3)
	binary, err := operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	// As the chart installs it: the objects go to the clusters with their
	// kubeconfigs' rights, so nothing beyond the chart's defaults is granted.
	// The members of sets with spec.inputs and no placement go to the hub:
	// their ConfigMaps are granted as a platform team grants what its
	// sources deploy (rbac.extraRules).
	operatorConfig = hub.StartOperator(binary, map[string]any{
		"rbac": map[string]any{"extraRules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"},
			"verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"}}}}}, GinkgoWriter,
		"--source", "site="+testdata("site"), "--source", "tenant="+testdata("tenant"))
})

// testdata is the path of name in the suite's testdata.
func testdata(name string) string {
	return filepath.Join(testcluster.ModuleRoot(), "test", "fleet", "testdata", name)
}
