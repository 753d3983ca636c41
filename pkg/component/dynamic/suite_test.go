package dynamic_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

func TestDynamic(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "dynamic")
}

var (
	env    *testcluster.Env
	scheme = runtime.NewScheme()
)

// addToScheme is what the manager's scheme holds: client-go's types and
// CRDs, not the served kinds.
func addToScheme(s *runtime.Scheme) error {
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return err
	}
	return apiextensionsv1.AddToScheme(s)
}

// The bare API server: what is applied here (ConfigMaps) is ready as soon
// as it exists, and no controller adds anything.
var _ = BeforeSuite(func() {
	log.SetLogger(GinkgoLogr)
	Expect(addToScheme(scheme)).To(Succeed())
	var err error
	env, err = testcluster.Start(testcluster.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
})
