package diffview

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestDiffview(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "cli/diffview")
}
