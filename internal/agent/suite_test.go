package agent_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "agent")
}

// env is a bare API server (kube-apiserver and etcd, bootstrap tokens
// on): the hub and the agent's own cluster at once. Nothing signs
// certificates; the specs here end before a request would be signed.
var env *testcluster.Env

var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	var err error
	env, err = testcluster.Start(testcluster.Options{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
})
