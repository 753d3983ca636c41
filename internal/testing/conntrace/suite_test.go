package conntrace_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestConntrace(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "conntrace")
}
