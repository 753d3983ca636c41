package clitest

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

var (
	// Env is the suite's cluster, once Start has run.
	Env *testcluster.Env
	// Kubeconfig reaches Env's API server; Unreachable points nowhere.
	Kubeconfig, Unreachable string
)

// Start starts the suite's cluster, the whole one: the Deployments the
// CLI waits for are rolled out by the Deployment controller, the scheduler
// and kwok. It writes Kubeconfig and Unreachable, and stops the cluster
// when the suite ends. Call it in a BeforeSuite.
func Start() {
	log.SetLogger(GinkgoLogr)
	var err error
	Env, err = testcluster.Start(testcluster.Options{Controllers: true})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(Env.Stop()).To(Succeed()) })
	dir := GinkgoT().TempDir()
	Kubeconfig = filepath.Join(dir, "kubeconfig")
	Expect(testcluster.WriteKubeconfig(Env.Config, Kubeconfig)).To(Succeed())
	Unreachable = filepath.Join(dir, "unreachable")
	Expect(testcluster.WriteKubeconfig(&rest.Config{Host: "https://127.0.0.1:1"}, Unreachable)).To(Succeed())
}
