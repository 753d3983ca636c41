package reliability_test

import (
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/internal/apicount"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testenv"
)

// inProcess is the operator name of the operators the suite runs in its own
// process; the crash test's binary uses another name.
const inProcess = "rel.wavekit.dev"

// startOperator runs the reference operator in this process, serving the
// given sources (name → directory under testdata), until the spec ends. Its
// API requests are counted. Sources keep tests apart: an operator ignores
// the Components of sources it does not serve.
func startOperator(ctx context.Context, sources map[string]string) *apicount.Counter {
	GinkgoHelper()
	dirs := map[string]string{}
	for name, dir := range sources {
		dirs[name] = testdata(dir)
	}
	counter := apicount.New()
	mgr, err := ctrl.NewManager(counter.Wrap(env.Config), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	Expect(err).NotTo(HaveOccurred())
	_, err = operator.Setup(mgr, operator.Options{Name: inProcess, Sources: dirs})
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
	DeferCleanup(func() { cancel(); <-done })
	return counter
}

func testdata(dir string) string {
	return filepath.Join(testenv.ModuleRoot(), "test", "reliability", "testdata", dir)
}
