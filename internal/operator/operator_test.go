package operator_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/internal/operator"
)

func TestOperator(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "operator")
}

var _ = Describe("start-up", func() {
	// A manager that is never started: Setup fails before it connects.
	newManager := func() ctrl.Manager {
		mgr, err := ctrl.NewManager(&rest.Config{Host: "https://127.0.0.1:1"}, ctrl.Options{
			Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		})
		Expect(err).NotTo(HaveOccurred())
		return mgr
	}

	It("names a source directory that cannot be loaded", func() {
		_, err := operator.Setup(newManager(), operator.Options{Name: "x.dev", Sources: map[string]string{"web": "/does/not/exist"}})
		Expect(err).To(MatchError("--source web=/does/not/exist: source /does/not/exist: no such directory"))
	})

	It("checks every source without a cluster and names each that cannot be loaded", func() {
		err := operator.CheckSources("x.dev", map[string]string{"web": "/does/not/exist", "ok": "../../internal/cli/testdata/web", "api": "/proc/version"})
		Expect(err).To(MatchError("--source api=/proc/version: source /proc/version: not a directory\n" +
			"--source web=/does/not/exist: source /does/not/exist: no such directory"))
		Expect(operator.CheckSources("x.dev", map[string]string{"ok": "../../internal/cli/testdata/web"})).To(Succeed())
	})

	It("refuses a source cache it cannot create", func() {
		_, err := operator.Setup(newManager(), operator.Options{Name: "x.dev", CacheDir: "/proc/version/cache"})
		Expect(err).To(MatchError(HavePrefix("source cache /proc/version/cache: ")))
	})

	DescribeTable("parses --source flags",
		func(flags []string, want map[string]string, message string) {
			got, err := operator.ParseSources(flags)
			if message != "" {
				Expect(err).To(MatchError(message))
			} else {
				Expect(err).NotTo(HaveOccurred())
			}
			Expect(got).To(Equal(want))
		},
		Entry("two sources", []string{"a=/x", "b=/y"}, map[string]string{"a": "/x", "b": "/y"}, ""),
		Entry("no equals sign", []string{"a"}, map[string]string{}, `--source "a": want NAME=DIR`),
		Entry("empty dir", []string{"a="}, map[string]string{}, `--source "a=": want NAME=DIR`),
		Entry("a name twice", []string{"a=/x", "a=/y"}, map[string]string{"a": "/x"}, `--source "a=/y": source a given twice`),
		Entry("every problem, keeping the good flags", []string{"a", "b=/x", "=/y", "b=/z"}, map[string]string{"b": "/x"},
			"--source \"a\": want NAME=DIR\n--source \"=/y\": want NAME=DIR\n--source \"b=/z\": source b given twice"),
	)
})
