package writes

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestWrites(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "writes")
}
