package notify_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
)

func TestNotify(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "notify")
}

// counter sums the counters of family name whose labels include labels.
func counter(name string, labels map[string]string) float64 {
	GinkgoHelper()
	total, err := componenttest.Counter(name, labels)
	Expect(err).NotTo(HaveOccurred())
	return total
}
