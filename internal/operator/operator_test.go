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
		Expect(err).To(MatchError(HavePrefix("source web (/does/not/exist): ")))
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
				return
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("two sources", []string{"a=/x", "b=/y"}, map[string]string{"a": "/x", "b": "/y"}, ""),
		Entry("no equals sign", []string{"a"}, nil, `--source "a": want NAME=DIR`),
		Entry("empty dir", []string{"a="}, nil, `--source "a=": want NAME=DIR`),
		Entry("a name twice", []string{"a=/x", "a=/y"}, nil, `--source "a=/y": source a given twice`),
	)
})
