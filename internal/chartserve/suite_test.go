package chartserve_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestChartserve(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "chartserve")
}
