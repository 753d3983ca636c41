package expiry

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestExpiry(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "expiry")
}
