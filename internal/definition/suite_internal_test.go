package definition

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestDefinition(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "definition")
}

// env is a bare API server (kube-apiserver and etcd) with wavekit's CRDs:
// the specs here write Events and read them back; no controller runs.
var env *testcluster.Env

var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	var err error
	env, err = testcluster.Start(testcluster.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
})
