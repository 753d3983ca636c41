package managedfields

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestManagedFields(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "managedfields")
}
