package componentsets_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

func TestComponentSets(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "cli/componentsets")
}

var _ = BeforeSuite(clitest.Start)
