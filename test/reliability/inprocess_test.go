package reliability_test

import (
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
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
	mgr, err := ctrl.NewManager(counter.Wrap(env.Config), componenttest.ManagerOptions(scheme))
	Expect(err).NotTo(HaveOccurred())
	_, err = operator.Setup(mgr, operator.Options{Name: inProcess, Sources: dirs})
	Expect(err).NotTo(HaveOccurred())
	componenttest.RunManager(ctx, mgr)
	return counter
}

func testdata(dir string) string {
	return filepath.Join(testcluster.ModuleRoot(), "test", "reliability", "testdata", dir)
}
